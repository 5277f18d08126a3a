import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLString,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLEnumType,
  type GraphQLInputType,
  type GraphQLScalarType,
} from 'graphql';

/** One place where a JSON value does not have the shape of a GraphQL input type. */
export interface ShapeProblem {
  /** Where, from the checked value: member names and array indexes, e.g. `['created', 0, 'gender']`. */
  path: (string | number)[];
  /** What was expected, in JSON's words: `expected true or false`, `not a member of …`. */
  expected: string;
  /** The offending value, when there is one (an unknown member's value, a wrong type). */
  value?: unknown;
}

const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;

/** `created[0].is_carring_infant`: a path as a JavaScript client would write it. */
export function formatPath(path: readonly (string | number)[]): string {
  return path.map((step, index) => (typeof step === 'number' ? `[${step}]` : index === 0 ? step : `.${step}`)).join('');
}

/**
 * Checks a JSON value against a GraphQL input type and reports every mismatch, so a REST body is
 * judged in JSON's terms (true or false, an integer, a string, an array, a member) before it
 * becomes GraphQL variables, whose coercion errors speak GraphQL and stop at the first few. The
 * input type stays the one list of members and types.
 *
 * Stricter than GraphQL's coercion where JSON clients deserve it: a single value is not taken for
 * a one-item list. Null and absent members are accepted wherever the type is nullable.
 */
export function inputShapeProblems(type: GraphQLInputType, value: unknown, path: (string | number)[] = [], problems: ShapeProblem[] = []): ShapeProblem[] {
  if (value === null || value === undefined) {
    if (isNonNullType(type)) problems.push({ path, expected: value === undefined ? 'required' : 'must not be null', ...(value === null ? { value } : {}) });
    return problems;
  }
  const nullable = isNonNullType(type) ? type.ofType : type;
  if (isListType(nullable)) {
    if (!Array.isArray(value)) {
      problems.push({ path, expected: 'expected an array', value });
      return problems;
    }
    value.forEach((item, index) => inputShapeProblems(nullable.ofType, item, [...path, index], problems));
    return problems;
  }
  if (isInputObjectType(nullable)) {
    if (typeof value !== 'object' || Array.isArray(value)) {
      problems.push({ path, expected: `expected a JSON object (${describeObject(nullable)})`, value });
      return problems;
    }
    const fields = nullable.getFields();
    for (const [name, member] of Object.entries(value as Record<string, unknown>)) {
      if (!Object.hasOwn(fields, name)) problems.push({ path: [...path, name], expected: `not a member of ${describeObject(nullable)}`, value: member });
    }
    for (const [name, field] of Object.entries(fields)) {
      inputShapeProblems(field.type, (value as Record<string, unknown>)[name], [...path, name], problems);
    }
    return problems;
  }
  const expected = scalarMismatch(nullable, value);
  if (expected) problems.push({ path, expected, value });
  return problems;
}

/** `a passenger record` from `PassengerInput`; the input type's name with "Input" dropped otherwise. */
function describeObject(type: { name: string }): string {
  const noun = type.name.replace(/Input$/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return `a ${noun} record`;
}

/** What a scalar or enum expected, or undefined when the value fits. */
function scalarMismatch(type: GraphQLScalarType | GraphQLEnumType, value: unknown): string | undefined {
  switch (type.name) {
    case GraphQLBoolean.name:
      return typeof value === 'boolean' ? undefined : 'expected true or false';
    case GraphQLInt.name:
      if (typeof value !== 'number' || !Number.isInteger(value)) return 'expected an integer';
      return value >= INT_MIN && value <= INT_MAX ? undefined : `expected an integer from ${INT_MIN} to ${INT_MAX}`;
    case GraphQLFloat.name:
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'expected a number';
    case GraphQLString.name:
      return typeof value === 'string' ? undefined : 'expected a string';
    case GraphQLID.name:
      return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)) ? undefined : 'expected a string or an integer';
  }
  if (isEnumType(type)) {
    const names = type.getValues().map((enumValue) => enumValue.name);
    return typeof value === 'string' && names.includes(value) ? undefined : `expected one of ${names.join(', ')}`;
  }
  try {
    type.parseValue(value);
    return undefined;
  } catch (error) {
    return `not a valid ${type.name}: ${(error as Error).message}`;
  }
}
