import { BSONSymbol, Double, Int32, Long, type Document } from 'bson';
import { formatValue, isPlainObject, setOwn } from './bson-values';
import { CommandError, ErrorCode, unsupportedFeature } from './errors';

/**
 * How the engine keeps each number's BSON type (int32, int64, double, decimal128) without paying
 * for it on the common path. A plain JavaScript number stands for the type the `bson` package
 * serialises it as: int32 when it is an integer in the int32 range (and not -0), double
 * otherwise. Only the numbers a plain number would misrepresent are kept as `bson` classes: a
 * double with an int32-range integral value (`Double`), every int64 (`Long`), every Decimal128.
 * Documents written by mongoose or the driver from JavaScript numbers hold no wrapper at all.
 */

export type NumericKind = 'int' | 'long' | 'double' | 'decimal';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

function bsonTag(value: unknown): string | undefined {
  return value !== null && typeof value === 'object' && '_bsontype' in value ? (value as { _bsontype: string })._bsontype : undefined;
}

/** Whether a plain number would be serialised as int32. */
export function isInt32Number(value: number): boolean {
  return Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX && !Object.is(value, -0);
}

/** A double as stored: a plain number unless that would serialise as int32. */
export function storedDouble(value: number): number | Double {
  return isInt32Number(value) ? new Double(value) : value;
}

export function numericKind(value: unknown): NumericKind | undefined {
  if (typeof value === 'number') return isInt32Number(value) ? 'int' : 'double';
  if (typeof value === 'bigint') return 'long';
  switch (bsonTag(value)) {
    case 'Int32':
      return 'int';
    case 'Long':
      return 'long';
    case 'Double':
      return 'double';
    case 'Decimal128':
      return 'decimal';
  }
  return undefined;
}

const DATA_FIELDS = new Set(['documents', 'filter', 'query', 'update', 'pipeline', 'q', 'u', 'arrayFilters']);
const STATEMENT_LISTS = new Set(['updates', 'deletes']);

/**
 * A command as deserialised with `promoteValues: false`, turned into the engine's representation:
 * inside the fields that carry data (documents, filters, updates, pipelines) numbers keep their
 * types as described above; everywhere else (options, cursor ids, `txnNumber`, `$clusterTime`)
 * numbers are promoted as the `bson` package does by default, which the command code expects.
 */
export function retypeCommand(command: Document): Document {
  for (const key of Object.keys(command)) {
    const value = command[key];
    if (DATA_FIELDS.has(key)) command[key] = retype(value, true);
    else if (STATEMENT_LISTS.has(key) && Array.isArray(value)) {
      command[key] = value.map((statement: unknown) => (isPlainObject(statement) ? retypeCommand(statement) : retype(statement, false)));
    } else command[key] = retype(value, false);
  }
  return command;
}

function retype(value: unknown, keepTypes: boolean): unknown {
  // Checked in the order they are met most: int32s, doubles, subdocuments and arrays.
  if (value instanceof Int32) return value.value;
  if (value instanceof Double) return keepTypes && isInt32Number(value.value) ? value : value.value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const element: unknown = value[i];
      if (element !== null && typeof element === 'object') {
        const retyped = retype(element, keepTypes);
        if (retyped !== element) value[i] = retyped;
      }
    }
    return value;
  }
  // Not `instanceof Long`: Timestamp is a subclass of it.
  if (value instanceof Long && value._bsontype === 'Long') {
    if (keepTypes) return value;
    const asNumber = value.toNumber();
    return Number.isSafeInteger(asNumber) ? asNumber : value;
  }
  if (value instanceof BSONSymbol) return value.valueOf();
  if (isPlainObject(value)) {
    for (const key in value) {
      const field: unknown = value[key];
      if (field !== null && typeof field === 'object') {
        const retyped = retype(field, keepTypes);
        if (retyped !== field) setOwn(value, key, retyped);
      }
    }
  }
  return value;
}

/**
 * A copy of a value with every kept numeric type replaced by a plain number (int64 beyond 2^53
 * stays `Long`): the representation mingo's aggregation expressions compute with.
 */
export function plainNumbers<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const plain = plainNumbers(value[i]);
      if (plain !== value[i]) (copy ??= value.slice())[i] = plain;
    }
    return (copy ?? value) as T;
  }
  if (isPlainObject(value)) {
    const source: Document = value;
    let copy: Document | undefined;
    for (const key of Object.keys(source)) {
      const field: unknown = source[key];
      if (field === null || typeof field !== 'object') continue;
      const plain = plainNumbers(field);
      if (plain !== field) (copy ??= { ...source })[key] = plain;
    }
    return (copy ?? value) as T;
  }
  switch (bsonTag(value)) {
    case 'Double':
    case 'Int32':
      return (value as unknown as { value: number }).value as T;
    case 'Long': {
      const asNumber = (value as unknown as Long).toNumber();
      return (Number.isSafeInteger(asNumber) ? asNumber : value) as T;
    }
  }
  return value;
}

/**
 * Puts back the kept type of numbers a computation passed through unchanged: where `result` holds
 * a plain number at a path where `original` holds a wrapper of the same value.
 */
export function restoreNumericTypes(result: unknown, original: unknown): unknown {
  if (typeof result === 'number') {
    const kind = numericKind(original);
    if (kind === 'long' || (kind === 'double' && typeof original !== 'number')) {
      return toNumberValue(original) === result ? original : result;
    }
    return result;
  }
  if (Array.isArray(result) && Array.isArray(original)) {
    for (let i = 0; i < result.length && i < original.length; i += 1) result[i] = restoreNumericTypes(result[i], original[i]);
  } else if (isPlainObject(result) && isPlainObject(original)) {
    for (const key of Object.keys(result)) if (key in original) result[key] = restoreNumericTypes(result[key], original[key]);
  }
  return result;
}

function toNumberValue(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  const tag = bsonTag(value);
  if (tag === 'Long') return (value as Long).toNumber();
  return (value as { value: number }).value;
}

function toBigInt(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (bsonTag(value) === 'Long') return BigInt((value as Long).toString());
  return BigInt(toNumberValue(value));
}

function fromBigInt(value: bigint, allowInt32: boolean): number | Long | undefined {
  if (allowInt32 && value >= BigInt(INT32_MIN) && value <= BigInt(INT32_MAX)) return Number(value);
  if (value < LONG_MIN || value > LONG_MAX) return undefined;
  return Long.fromBigInt(value);
}

function widerKind(a: NumericKind, b: NumericKind): NumericKind {
  const order: NumericKind[] = ['int', 'long', 'double', 'decimal'];
  return order[Math.max(order.indexOf(a), order.indexOf(b))];
}

/**
 * `$inc` / `$mul` as MongoDB computes them: int32 with int32 stays int32 unless it overflows (then
 * int64); int64 is exact over its whole range (overflow is an error); any double makes a double.
 * A missing field counts as 0 of the operand's type. Decimal128 arithmetic is refused.
 */
export function applyArithmetic(operator: '$inc' | '$mul', current: unknown, operand: unknown, describe: () => string): unknown {
  const operandKind = numericKind(operand);
  const currentKind = current === undefined ? operandKind : numericKind(current);
  if (!operandKind || !currentKind) throw new CommandError(ErrorCode.TypeMismatch, `Cannot apply ${operator} to a non-numeric value`);
  const kind = widerKind(currentKind, operandKind);
  if (kind === 'decimal') {
    throw unsupportedFeature(`${operator} with a Decimal128 value`);
  }
  if (current === undefined) {
    if (operator === '$inc') return operand;
    return kind === 'long' ? Long.fromNumber(0) : kind === 'double' ? new Double(0) : 0;
  }
  if (kind === 'double') {
    const a = toNumberValue(current);
    const b = toNumberValue(operand);
    return storedDouble(operator === '$inc' ? a + b : a * b);
  }
  const a = toBigInt(current);
  const b = toBigInt(operand);
  const result = fromBigInt(operator === '$inc' ? a + b : a * b, kind === 'int');
  if (result === undefined) {
    const verb = operator === '$inc' ? 'inc' : 'mul';
    throw new CommandError(ErrorCode.BadValue, `Failed to apply $${verb} operations to current value (${formatValue(current)}) for document ${describe()}`);
  }
  return result;
}
