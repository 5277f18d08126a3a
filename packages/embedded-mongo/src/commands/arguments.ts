import type { Document } from 'bson';
import { bsonTypeName, isNumeric, isPlainObject, valueKey } from '../bson-values';
import type { Collection } from '../collection';
import { CommandError, ErrorCode } from '../errors';
import { assertKnownCommandFields } from './known-fields';

/** The collection a command names in its first field (`{find: 'users'}`). */
export function collectionNameArgument(body: Document, command: string): string {
  const name = body[command];
  if (typeof name !== 'string') {
    throw new CommandError(ErrorCode.InvalidNamespace, `collection name has invalid type ${bsonTypeName(name)}`);
  }
  if (name.length === 0) throw new CommandError(ErrorCode.InvalidNamespace, `Invalid namespace specified '${name}'`);
  return name;
}

export function documentArgument(body: Document, field: string, command: string): Document | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) {
    throw new CommandError(ErrorCode.TypeMismatch, `BSON field '${command}.${field}' is the wrong type '${bsonTypeName(value)}', expected type 'object'`);
  }
  return value;
}

export function arrayArgument(body: Document, field: string, command: string): unknown[] {
  const value = body[field];
  if (!Array.isArray(value)) {
    if (value === undefined) throw new CommandError(40414, `BSON field '${command}.${field}' is missing but a required field`);
    throw new CommandError(ErrorCode.TypeMismatch, `BSON field '${command}.${field}' is the wrong type '${bsonTypeName(value)}', expected type 'array'`);
  }
  return value;
}

export function integerArgument(body: Document, field: string, command: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isNumeric(value)) {
    throw new CommandError(ErrorCode.TypeMismatch, `BSON field '${command}.${field}' is the wrong type '${bsonTypeName(value)}', expected types '[long, int, decimal, double]'`);
  }
  return Math.trunc(Number(value));
}

export function nonNegativeIntegerArgument(body: Document, field: string, command: string): number | undefined {
  const value = integerArgument(body, field, command);
  if (value !== undefined && value < 0) {
    throw new CommandError(51024, `BSON field '${field}' value must be >= 0, actual value '${value}'`);
  }
  return value;
}

/** A collation the engine can honour: none, or the default binary comparison (`{locale: 'simple'}`). */
export function assertSimpleCollation(collation: unknown): void {
  if (collation === undefined || collation === null) return;
  if (isPlainObject(collation) && collation.locale === 'simple') return;
  throw new CommandError(
    ErrorCode.CommandNotSupported,
    'collation (other than {locale: "simple"}) is not supported by the embedded development engine; set MONGODB_URI to use a real MongoDB.',
  );
}

const LET_COMMANDS = new Set(['find', 'aggregate', 'update', 'delete', 'findAndModify', 'findandmodify']);

function holdsExpression(value: unknown): boolean {
  if (typeof value === 'string') return value.startsWith('$');
  if (Array.isArray(value)) return value.some(holdsExpression);
  if (isPlainObject(value)) return Object.entries(value).some(([key, inner]) => key.startsWith('$') || holdsExpression(inner));
  return false;
}

/**
 * A command's `let` variables, for `$$name` in `$expr`, aggregation stages and pipeline updates.
 * Constant values only: a variable defined by an expression is refused (CommandNotSupported).
 */
export function letVariables(body: Document): Document | undefined {
  const variables = body.let;
  if (variables === undefined || variables === null) return undefined;
  if (!isPlainObject(variables)) {
    throw new CommandError(ErrorCode.TypeMismatch, `BSON field 'let' is the wrong type '${bsonTypeName(variables)}', expected type 'object'`);
  }
  for (const [name, value] of Object.entries(variables)) {
    if (holdsExpression(value)) {
      throw new CommandError(ErrorCode.CommandNotSupported, `'let' variable '${name}' is an expression; only constant values are supported by the embedded development engine; set MONGODB_URI to use a real MongoDB.`);
    }
  }
  return Object.keys(variables).length > 0 ? variables : undefined;
}

/**
 * Fields outside the command's MongoDB 7.0 IDL (IDLUnknownField), then options that would change a
 * command's results and that the engine cannot honour, checked once per command before it runs: a
 * non-simple `collation`, `let` variables, snapshot reads outside a transaction, and write
 * concerns that name a tag the set does not have.
 */
export function assertSupportedCommandOptions(body: Document, inTransaction: boolean): void {
  assertKnownCommandFields(body);
  if (body.collation !== undefined) assertSimpleCollation(body.collation);
  if (body.let !== undefined && body.let !== null && !LET_COMMANDS.has(Object.keys(body)[0])) {
    throw new CommandError(ErrorCode.CommandNotSupported, "'let' is not supported on this command by the embedded development engine; set MONGODB_URI to use a real MongoDB.");
  }
  const readConcern = body.readConcern;
  if (isPlainObject(readConcern)) {
    if (readConcern.atClusterTime !== undefined || (readConcern.level === 'snapshot' && !inTransaction)) {
      throw new CommandError(
        ErrorCode.CommandNotSupported,
        "readConcern level 'snapshot' outside a transaction (and atClusterTime) is not supported by the embedded development engine; set MONGODB_URI to use a real MongoDB.",
      );
    }
  }
}

/**
 * The `writeConcernError` a single-node replica set reports after applying a write whose write
 * concern it cannot satisfy: `w` above 1 (code 100, UnsatisfiableWriteConcern) or a tag it has no
 * mode for (code 79, UnknownReplWriteConcern). `w: 0`, `1` and `'majority'` are satisfied.
 */
export function unsatisfiedWriteConcern(body: Document): Document | undefined {
  const concern = body.writeConcern;
  if (!isPlainObject(concern) || concern.w === undefined) return undefined;
  const w = concern.w;
  if (isNumeric(w)) {
    if (Number(w) <= 1) return undefined;
    return { code: 100, codeName: 'UnsatisfiableWriteConcern', errmsg: 'Not enough data-bearing nodes' };
  }
  if (typeof w === 'string' && w !== 'majority') {
    return { code: 79, codeName: 'UnknownReplWriteConcern', errmsg: `No write concern mode named '${w}' found in replica set configuration` };
  }
  return undefined;
}

/**
 * A `hint` must name an existing index (by name or key pattern) or `$natural`, as in MongoDB
 * (BadValue). On a collection that does not exist MongoDB answers no documents without planning,
 * so the hint is not checked there either. An existing index is accepted: it cannot change results.
 */
export function assertHintExists(collection: Collection | undefined, hint: unknown): void {
  if (hint === undefined || hint === null || !collection) return;
  if (typeof hint === 'string') {
    if (hint === '' || collection.indexes.has(hint)) return;
  } else if (isPlainObject(hint)) {
    const keys = Object.keys(hint);
    if (keys.length === 0 || (keys.length === 1 && keys[0] === '$natural')) return;
    const wanted = valueKey(hint);
    for (const index of collection.indexes.values()) if (valueKey(index.spec.key) === wanted) return;
  } else {
    throw new CommandError(ErrorCode.FailedToParse, 'hint must be a string or an object');
  }
  throw new CommandError(
    ErrorCode.BadValue,
    `error processing query: ns=${collection.namespace} planner returned error :: caused by :: hint provided does not correspond to an existing index`,
  );
}
