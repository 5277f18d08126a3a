import {
  getNamedType,
  isEnumType,
  isLeafType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  BREAK,
  type DocumentNode,
  type GraphQLEnumType,
  type GraphQLSchema,
} from 'graphql';

/** Built-in scalars whose serialisation is the identity on a value of the right JavaScript type (ID turns numbers into strings). */
const PLAIN_SCALARS = new Set(['String', 'Int', 'Float', 'Boolean']);

/**
 * Whether every leaf field `document` selects may skip graphql-jit's leaf serialisation: each is
 * `__typename`, or a String, Int, Float, Boolean or enum (whose internal values are its names)
 * field of an object type in `trustedTypes`, types whose service builds every field with exactly
 * its GraphQL type. graphql-jit's serialising call allocates three arrays per leaf for its error
 * path, whether or not an error happens: several times what the entries themselves take (figures:
 * docs/performance.md, "Figures behind the code"). Null checks on non-null fields stay either way.
 */
export function leavesAreTrusted(schema: GraphQLSchema, document: DocumentNode, trustedTypes: ReadonlySet<string>): boolean {
  if (trustedTypes.size === 0) return false;
  const typeInfo = new TypeInfo(schema);
  let trusted = true;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const type = typeInfo.getType();
        const named = type && getNamedType(type);
        if (!named || !isLeafType(named) || node.name.value === '__typename') return;
        const parent = typeInfo.getParentType();
        const plain = PLAIN_SCALARS.has(named.name) || (isEnumType(named) && hasIdentityValues(named));
        if (!plain || !parent || !trustedTypes.has(parent.name)) {
          trusted = false;
          return BREAK;
        }
      },
    }),
  );
  return trusted;
}

function hasIdentityValues(type: GraphQLEnumType): boolean {
  return type.getValues().every((value) => value.value === value.name);
}
