/**
 * JSON Schemas derived from the GraphQL operations the routes run, as SOFA derives its OpenAPI
 * document from the schema (`src/open-api/types.ts`): a route's answer is its operation's data, so
 * the selection set (aliases give the contract's names) and the schema's types give the members,
 * their JSON types, which are required and which may be null. What GraphQL cannot say (a pattern,
 * a date format, a code list kept as String) is laid over it from the field declaration or the
 * route's own refinements.
 */
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  typeFromAST,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { PASSENGER_RECORD_FIELDS, type PassengerFieldDeclaration } from '../src/passengers/passenger.fields';

export type JsonSchema = Record<string, unknown>;

const SCALARS: Record<string, JsonSchema> = {
  Int: { type: 'integer' },
  Float: { type: 'number' },
  String: { type: 'string' },
  Boolean: { type: 'boolean' },
  ID: { type: 'string' },
  DateTimeISO: { type: 'string', format: 'date-time' },
};

/** A GraphQL leaf type as JSON Schema: scalars by name, enums as their values. */
function leafSchema(type: GraphQLOutputType | GraphQLInputType): JsonSchema {
  const named = getNamedType(type);
  if (isEnumType(named)) return { type: 'string', enum: named.getValues().map((value) => value.name) };
  const scalar = SCALARS[named.name];
  if (!isScalarType(named) || !scalar) throw new Error(`no JSON Schema for the GraphQL type ${named.name}`);
  return { ...scalar };
}

/** `{type: 'string'}` → `{type: ['string', 'null']}`: a member GraphQL may answer with null. */
function orNull(schema: JsonSchema): JsonSchema {
  return typeof schema.type === 'string' ? { ...schema, type: [schema.type, 'null'] } : { oneOf: [schema, { type: 'null' }] };
}

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
}

/** The object a selection set answers: every selected member (by its alias) is present. */
function objectSchema(walk: Walk, parent: GraphQLCompositeType, selectionSet: SelectionSetNode): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const collect = (type: GraphQLCompositeType, set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = walk.fragments.get(selection.name.value)!;
        collect(typeFromAST(walk.schema, fragment.typeCondition) as GraphQLCompositeType, fragment.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.typeCondition ? (typeFromAST(walk.schema, selection.typeCondition) as GraphQLCompositeType) : type, selection.selectionSet);
      } else if ('getFields' in type) {
        const field = type.getFields()[selection.name.value];
        const member = outputSchema(walk, field.type, selection.selectionSet);
        properties[selection.alias?.value ?? selection.name.value] = field.description ? { ...member, description: field.description } : member;
      }
    }
  };
  collect(parent, selectionSet);
  return { type: 'object', additionalProperties: false, required: Object.keys(properties), properties };
}

function outputSchema(walk: Walk, type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined): JsonSchema {
  const inner = getNullableType(type) as GraphQLOutputType;
  let schema: JsonSchema;
  if (isListType(inner)) schema = { type: 'array', items: outputSchema(walk, inner.ofType as GraphQLOutputType, selectionSet) };
  else if (selectionSet) schema = objectSchema(walk, inner as GraphQLCompositeType, selectionSet);
  else schema = leafSchema(inner);
  return isNonNullType(type) ? schema : orNull(schema);
}

/**
 * The JSON Schema of what an operation answers at `path` (response keys: aliases where the
 * operation sets them), lists unwrapped: `['timelineEvents', 'dep']` is one entry's departure airport.
 */
export function operationResultSchema(schema: GraphQLSchema, document: DocumentNode, path: readonly string[]): JsonSchema {
  const operation = document.definitions.find((node): node is OperationDefinitionNode => node.kind === Kind.OPERATION_DEFINITION)!;
  const fragments = new Map(document.definitions.filter((node): node is FragmentDefinitionNode => node.kind === Kind.FRAGMENT_DEFINITION).map((node) => [node.name.value, node]));
  let result = objectSchema({ schema, fragments }, schema.getRootType(operation.operation)!, operation.selectionSet);
  for (const key of path) {
    result = (result.properties as Record<string, JsonSchema>)[key];
    while (result.type === 'array' || (Array.isArray(result.type) && result.type.includes('array'))) result = result.items as JsonSchema;
    if (result.oneOf) result = (result.oneOf as JsonSchema[])[0];
  }
  // The description is the selecting field's (`dep`: "Departure airport"), not the value's.
  const value = { ...result };
  delete value.description;
  return value;
}

/** The JSON Schema of an operation variable's type (a query parameter that is the variable). */
export function variableSchema(schema: GraphQLSchema, document: DocumentNode, name: string): JsonSchema {
  const operation = document.definitions.find((node): node is OperationDefinitionNode => node.kind === Kind.OPERATION_DEFINITION)!;
  const definition = operation.variableDefinitions?.find((node) => node.variable.name.value === name);
  if (!definition) throw new Error(`the operation ${operation.name?.value} has no variable $${name}`);
  return leafSchema(typeFromAST(schema, definition.type as never) as GraphQLInputType);
}

/** An input object's members as JSON Schema: each may be absent, nullable ones may be null. */
export function inputObjectSchema(schema: GraphQLSchema, typeName: string): JsonSchema {
  const type = schema.getType(typeName);
  if (!isInputObjectType(type)) throw new Error(`${typeName} is not an input type`);
  const properties = Object.fromEntries(
    Object.values(type.getFields()).map((field) => {
      const member = leafSchema(field.type);
      return [field.name, isNonNullType(field.type) ? member : orNull(member)];
    }),
  );
  return { type: 'object', additionalProperties: false, properties };
}

/** Replaces or refines members of an object schema (a refinement with `$ref` replaces the member). */
export function refineProperties(object: JsonSchema, refinements: Record<string, JsonSchema>): JsonSchema {
  const properties = { ...(object.properties as Record<string, JsonSchema>) };
  for (const [key, refinement] of Object.entries(refinements)) {
    if (!(key in properties)) throw new Error(`no member ${key} to refine`);
    properties[key] = '$ref' in refinement ? refinement : { ...properties[key], ...refinement };
  }
  return { ...object, properties };
}

/** What the field declaration adds to a stored value's GraphQL type: its description, codes, pattern, format, bounds and example. */
function storedRefinement(field: PassengerFieldDeclaration): JsonSchema {
  return {
    description: field.description,
    ...(field.values ? { enum: [...field.values] } : {}),
    ...(field.pattern ? { pattern: field.pattern } : {}),
    ...(field.format ? { format: field.format } : {}),
    ...(field.minimum !== undefined ? { minimum: field.minimum } : {}),
    examples: [field.example],
  };
}

/** The declared fields' refinements of a record schema derived from GraphQL (stored values, or what a push takes). */
export function passengerRefinements(object: JsonSchema, face: 'stored' | 'input'): Record<string, JsonSchema> {
  const declared = Object.keys(object.properties as object).filter((key): key is keyof typeof PASSENGER_RECORD_FIELDS => key in PASSENGER_RECORD_FIELDS);
  return Object.fromEntries(declared.map((key) => [key, face === 'stored' ? storedRefinement(PASSENGER_RECORD_FIELDS[key]) : { description: PASSENGER_RECORD_FIELDS[key].input }]));
}
