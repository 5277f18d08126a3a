import type { Binary, Document, Long } from 'bson';
import { bsonTypeName, isPlainObject } from './bson-values';
import { collectPathValues, collectPathValuesWithArrays } from './document-paths';
import { CommandError, ErrorCode } from './errors';

/**
 * `$type` and the bit-test operators (`$bitsAllSet`, `$bitsAnySet`, `$bitsAllClear`,
 * `$bitsAnyClear`) over BSON values as the engine stores them. mingo knows neither `long`,
 * `objectId`, `binData`, `decimal` nor `timestamp` for `$type`, and tests bits of plain numbers
 * only, so those queries silently matched nothing.
 */

/** MongoDB's `$type` aliases by number. */
const TYPE_ALIASES: Record<number, string> = {
  1: 'double', 2: 'string', 3: 'object', 4: 'array', 5: 'binData', 6: 'undefined', 7: 'objectId', 8: 'bool', 9: 'date', 10: 'null',
  11: 'regex', 12: 'dbPointer', 13: 'javascript', 14: 'symbol', 15: 'javascriptWithScope', 16: 'int', 17: 'timestamp', 18: 'long',
  19: 'decimal', [-1]: 'minKey', 127: 'maxKey',
};
const TYPE_NAMES = new Set([...Object.values(TYPE_ALIASES), 'number']);
const NUMBER_TYPES = new Set(['double', 'int', 'long', 'decimal']);

/** The `$type` name of a stored value (a JavaScript number answers as the engine serialises it: int or double). */
function storedTypeName(value: unknown): string {
  const tag = value !== null && typeof value === 'object' && '_bsontype' in value ? (value as { _bsontype: string })._bsontype : undefined;
  switch (tag) {
    case 'MinKey':
      return 'minKey';
    case 'MaxKey':
      return 'maxKey';
    case 'Code':
      return (value as { scope?: unknown }).scope ? 'javascriptWithScope' : 'javascript';
    case 'BSONSymbol':
      return 'symbol';
    case 'BSONRegExp':
      return 'regex';
    case 'DBRef':
      return 'object';
  }
  return bsonTypeName(value);
}

/** The aggregation `$type` expression: the stored value's type name, `missing` for none. */
export function typeExpression(value: unknown): string {
  if (value === undefined) return 'missing';
  const name = storedTypeName(value);
  return name === 'undefined' ? 'missing' : name;
}

function typeNamesOf(operand: unknown): Set<string> {
  const list = Array.isArray(operand) ? operand : [operand];
  const names = new Set<string>();
  for (const entry of list) {
    const name = typeof entry === 'number' ? TYPE_ALIASES[entry] : entry;
    if (typeof name !== 'string' || !TYPE_NAMES.has(name)) {
      throw new CommandError(ErrorCode.BadValue, typeof entry === 'number' ? `Invalid numerical type code: ${entry}` : `Unknown type name alias: ${String(entry)}`);
    }
    names.add(name);
  }
  return names;
}

export function typeQueryOperator(selector: string, operand: unknown): (document: Document) => boolean {
  const wanted = typeNamesOf(operand);
  return (document) =>
    collectPathValuesWithArrays(document, selector).some((value) => {
      const name = storedTypeName(value);
      return wanted.has(name) || (wanted.has('number') && NUMBER_TYPES.has(name));
    });
}

type BitsOperator = '$bitsAllSet' | '$bitsAnySet' | '$bitsAllClear' | '$bitsAnyClear';

/** Bit positions from a `$bits*` operand: a non-negative integer mask, a BinData mask, or a list of positions. */
function bitPositions(operator: string, operand: unknown): number[] {
  if (Array.isArray(operand)) {
    for (const position of operand) {
      if (typeof position !== 'number' || !Number.isInteger(position) || position < 0) {
        throw new CommandError(ErrorCode.BadValue, `bit positions must be >= 0 but got: ${String(position)}`);
      }
    }
    return operand as number[];
  }
  const bytes = binaryBytesOf(operand);
  if (bytes) {
    const positions: number[] = [];
    bytes.forEach((byte, index) => {
      for (let bit = 0; bit < 8; bit += 1) if (byte & (1 << bit)) positions.push(index * 8 + bit);
    });
    return positions;
  }
  const mask = integerOf(operand);
  if (mask === undefined || mask < 0n) throw new CommandError(ErrorCode.BadValue, `${operator} takes an Array, a number, or a BinData but received: ${String(operand)}`);
  const positions: number[] = [];
  for (let bit = 0; mask >> BigInt(bit) > 0n; bit += 1) if ((mask >> BigInt(bit)) & 1n) positions.push(bit);
  return positions;
}

function binaryBytesOf(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value;
  if (value !== null && typeof value === 'object' && (value as { _bsontype?: string })._bsontype === 'Binary') {
    const binary = value as Binary;
    return binary.buffer.subarray(0, binary.position);
  }
  return undefined;
}

/** An integral numeric value as a 64-bit integer (doubles must be integral and in range, as MongoDB requires). */
function integerOf(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? BigInt(value) : undefined;
  if (value !== null && typeof value === 'object' && (value as { _bsontype?: string })._bsontype === 'Long') return BigInt((value as Long).toString());
  return undefined;
}

function bitIsSet(value: unknown, position: number): boolean | undefined {
  const bytes = binaryBytesOf(value);
  if (bytes) return position >> 3 < bytes.length ? (bytes[position >> 3] & (1 << (position & 7))) !== 0 : false;
  const integer = integerOf(value);
  if (integer === undefined) return undefined;
  // Two's complement, sign-extended beyond bit 63 (as MongoDB tests negative numbers).
  return position >= 64 ? integer < 0n : ((BigInt.asUintN(64, integer) >> BigInt(position)) & 1n) === 1n;
}

export function bitsQueryOperator(operator: BitsOperator) {
  return (selector: string, operand: unknown): ((document: Document) => boolean) => {
    const positions = bitPositions(operator, operand);
    const wantSet = operator === '$bitsAllSet' || operator === '$bitsAnySet';
    const all = operator === '$bitsAllSet' || operator === '$bitsAllClear';
    const test = (value: unknown): boolean => {
      if (isPlainObject(value) || Array.isArray(value)) return false;
      const states = positions.map((position) => bitIsSet(value, position));
      if (states.some((state) => state === undefined)) return false;
      return all ? states.every((state) => state === wantSet) : states.some((state) => state === wantSet);
    };
    return (document) => collectPathValues(document, selector).some(test);
  };
}
