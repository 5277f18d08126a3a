import { GraphQLError, Kind, type ASTVisitor, type FieldNode, type OperationDefinitionNode, type SelectionNode, type ValidationContext, type ValidationRule } from 'graphql';

/**
 * The bounds on introspection, a validation rule of step 2 (request-guards.ts). Introspection needs
 * no token, and the other bounds miss it: the depth rule leaves it out (explorers' queries are
 * deep), the cost estimate counts its lists as one row, and graphql-js's own
 * MaxIntrospectionDepthRule bounds only how deep `fields`, `interfaces`, `possibleTypes` and
 * `inputFields` nest. What was left was breadth: 20 aliases of a whole `__schema` (1.1 kB) answered
 * 2.69 MB after 270 ms of CPU, and 20 aliases of `types` inside one `__schema` did the same. So:
 *   - an operation selects `__schema` at most once: one answers the whole schema, and every client
 *     sends one (getIntrospectionQuery, whatever its options: GraphiQL, Apollo Sandbox, Apollo Client
 *     devtools, graphql-codegen);
 *   - `__type` at most MAX_TYPE_SELECTIONS times (Apollo Kotlin's pre-introspection query, the
 *     most found among clients, selects it 5 times, aliased);
 *   - no field inside `__schema` or `__type` has an alias: two names for one field only repeat its
 *     answer (no client sends one).
 * The selections are counted by response name, through aliases, inline fragments and fragment
 * spreads: two `__schema` under one name are merged by execution and run once. What remains is
 * bounded by the schema: the widest `__schema` a document can ask for answers about twice what the
 * standard introspection query does.
 */

/** `__schema` selections (response names) one operation may make. */
export const MAX_SCHEMA_SELECTIONS = 1;

/** `__type` selections (response names) one operation may make. */
export const MAX_TYPE_SELECTIONS = 10;

/** Response names quoted in a refusal. */
const NAMES_SHOWN = 5;

export const introspectionLimitRule: ValidationRule = (context: ValidationContext): ASTVisitor => ({
  OperationDefinition(operation) {
    const roots = rootIntrospectionFields(context, operation);
    const schema = roots.filter((field) => field.name.value === '__schema');
    const type = roots.filter((field) => field.name.value === '__type');
    if (schema.length > MAX_SCHEMA_SELECTIONS) {
      context.reportError(
        new GraphQLError(
          `The operation selects __schema ${schema.length} times (${quoted(schema)}); at most ${MAX_SCHEMA_SELECTIONS} per operation is allowed: one __schema answers the whole schema, select it once`,
          { nodes: schema },
        ),
      );
    }
    if (type.length > MAX_TYPE_SELECTIONS) {
      context.reportError(
        new GraphQLError(
          `The operation selects __type ${type.length} times (${quoted(type)}); at most ${MAX_TYPE_SELECTIONS} per operation are allowed: select __schema { types { … } } to read more types at once`,
          { nodes: type },
        ),
      );
    }
    const aliased = firstInnerAlias(context, roots);
    if (aliased) {
      context.reportError(
        new GraphQLError(`Fields inside __schema and __type take no alias (found "${aliased.alias!.value}: ${aliased.name.value}"): select each field once, under its own name`, {
          nodes: [aliased],
        }),
      );
    }
    return false;
  },
});

/**
 * The operation's root fields named `__schema` or `__type`, one per response name, through inline
 * fragments and fragment spreads (each fragment read once: it adds the same names wherever spread).
 */
function rootIntrospectionFields(context: ValidationContext, operation: OperationDefinitionNode): FieldNode[] {
  const byName = new Map<string, FieldNode>();
  const visited = new Set<string>();
  const pending: SelectionNode[] = [...operation.selectionSet.selections];
  for (let index = 0; index < pending.length; index += 1) {
    const selection = pending[index];
    if (selection.kind === Kind.FIELD) {
      const name = selection.name.value;
      const responseName = selection.alias?.value ?? name;
      if ((name === '__schema' || name === '__type') && !byName.has(`${name} ${responseName}`)) byName.set(`${name} ${responseName}`, selection);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      pending.push(...selection.selectionSet.selections);
    } else if (!visited.has(selection.name.value)) {
      visited.add(selection.name.value);
      pending.push(...(context.getFragment(selection.name.value)?.selectionSet.selections ?? []));
    }
  }
  // In the document's order, for the message.
  return [...byName.values()].sort((a, b) => (a.loc?.start ?? 0) - (b.loc?.start ?? 0));
}

/** The first field with an alias other than its name below `roots`, through fragments (each read once), or undefined. */
function firstInnerAlias(context: ValidationContext, roots: readonly FieldNode[]): FieldNode | undefined {
  const visited = new Set<string>();
  const pending: SelectionNode[] = roots.flatMap((root) => root.selectionSet?.selections ?? []);
  for (let index = 0; index < pending.length; index += 1) {
    const selection = pending[index];
    if (selection.kind === Kind.FIELD) {
      if (selection.alias && selection.alias.value !== selection.name.value) return selection;
      if (selection.selectionSet) pending.push(...selection.selectionSet.selections);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      pending.push(...selection.selectionSet.selections);
    } else if (!visited.has(selection.name.value)) {
      visited.add(selection.name.value);
      pending.push(...(context.getFragment(selection.name.value)?.selectionSet.selections ?? []));
    }
  }
  return undefined;
}

function quoted(fields: readonly FieldNode[]): string {
  const names = fields.slice(0, NAMES_SHOWN).map((field) => (field.alias ? `${field.alias.value}: ${field.name.value}` : field.name.value));
  return fields.length > NAMES_SHOWN ? `${names.join(', ')}, …` : names.join(', ');
}
