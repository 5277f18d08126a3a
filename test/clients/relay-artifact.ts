import {
  GraphQLList,
  GraphQLObjectType,
  getNamedType,
  getNullableType,
  isObjectType,
  parse,
  type FieldNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import type { ConcreteRequest } from 'relay-runtime';

/*
 * Relay's runtime reads artifacts that relay-compiler writes from graphql`` tags. Rather than add a
 * build step, this turns the query text into the same artifact (Reader and normalization ASTs) with
 * graphql-js and the service's schema. The runtime, its store and its default getDataID (`id` alone)
 * are Relay's own.
 */
export function relayRequest(schema: GraphQLSchema, text: string): ConcreteRequest {
  const document = parse(text);
  const operation = document.definitions[0] as OperationDefinitionNode;
  const name = operation.name!.value;
  const root = operation.operation === 'subscription' ? schema.getSubscriptionType()! : operation.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;

  const argument = (node: { name: { value: string }; value: ValueNode }) =>
    node.value.kind === 'Variable'
      ? { kind: 'Variable', name: node.name.value, variableName: node.value.name.value }
      : { kind: 'Literal', name: node.name.value, value: (node.value as { value: unknown }).value };

  const selections = (set: SelectionSetNode, parent: GraphQLObjectType | null): unknown[] =>
    set.selections.map((selection) => {
      if (selection.kind === 'InlineFragment') {
        const type = schema.getType(selection.typeCondition!.name.value) as GraphQLObjectType;
        return { kind: 'InlineFragment', type: type.name, abstractKey: null, selections: selections(selection.selectionSet, type) };
      }
      const field = selection as FieldNode;
      const common = { alias: field.alias?.value ?? null, name: field.name.value, args: field.arguments?.length ? field.arguments.map(argument) : null, storageKey: null };
      if (!field.selectionSet) return { kind: 'ScalarField', ...common };
      const definition = (parent ?? root).getFields()[field.name.value];
      const type = getNamedType(definition.type);
      return {
        kind: 'LinkedField',
        ...common,
        concreteType: isObjectType(type) ? type.name : null,
        plural: getNullableType(definition.type) instanceof GraphQLList,
        selections: selections(field.selectionSet, isObjectType(type) ? type : null),
      };
    });

  const argumentDefinitions = (operation.variableDefinitions ?? []).map((variable) => ({ kind: 'LocalArgument', name: variable.variable.name.value, defaultValue: null }));
  const rootSelections = selections(operation.selectionSet, null);
  return {
    kind: 'Request',
    fragment: { kind: 'Fragment', name, type: root.name, abstractKey: null, metadata: null, argumentDefinitions, selections: rootSelections },
    operation: { kind: 'Operation', name, argumentDefinitions, selections: rootSelections },
    params: { id: null, cacheID: name, name, operationKind: operation.operation, text, metadata: {} },
  } as unknown as ConcreteRequest;
}
