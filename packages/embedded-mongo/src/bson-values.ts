import type { Binary, Document, Long, ObjectId, Timestamp } from 'bson';

/**
 * Ordering, equality keys and display of BSON values as MongoDB defines them, for values as the
 * `bson` package deserialises them (numbers promoted, other BSON types as class instances).
 */

type BsonTagged = { _bsontype: string };

function bsonTypeOf(value: unknown): string | undefined {
  if (value !== null && typeof value === 'object' && '_bsontype' in value) return (value as BsonTagged)._bsontype;
  return undefined;
}

export function isPlainObject(value: unknown): value is Document {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** MongoDB's cross-type sort order (lower sorts first); numbers of every width share one rank. */
export function typeRank(value: unknown): number {
  if (value === undefined || value === null) return 2;
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return 3;
    case 'string':
      return 4;
    case 'boolean':
      return 9;
  }
  if (Array.isArray(value)) return 6;
  if (value instanceof Date) return 10;
  if (value instanceof RegExp) return 12;
  if (value instanceof Uint8Array) return 7;
  switch (bsonTypeOf(value)) {
    case 'MinKey':
      return 1;
    case 'Long':
    case 'Int32':
    case 'Double':
    case 'Decimal128':
      return 3;
    case 'BSONSymbol':
      return 4;
    case 'Binary':
      return 7;
    case 'ObjectId':
      return 8;
    case 'Timestamp':
      return 11;
    case 'BSONRegExp':
      return 12;
    case 'MaxKey':
      return 13;
    case 'Code':
      return 14;
  }
  return 5;
}

function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  const type = bsonTypeOf(value);
  if (type === 'Long') return (value as Long).toNumber();
  if (type === 'Int32' || type === 'Double') return (value as { value: number }).value;
  return Number(String(value));
}

function compareNumbers(a: number, b: number): number {
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : -1;
  if (Number.isNaN(b)) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

function binaryBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  const binary = value as Binary;
  return binary.buffer.length === binary.position ? binary.buffer : binary.buffer.subarray(0, binary.position);
}

function binarySubtype(value: unknown): number {
  return value instanceof Uint8Array ? 0 : (value as Binary).sub_type;
}

/** The exact integer a numeric value holds, when it is one (int64 beyond 2^53 included). */
function exactInteger(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (bsonTypeOf(value) === 'Long') return BigInt((value as Long).toString());
  const asNumber = toNumber(value);
  return Number.isInteger(asNumber) ? BigInt(asNumber) : undefined;
}

/** Numbers of any width; int64 values compare exactly (a double cannot hold them beyond 2^53). */
function compareNumeric(a: unknown, b: unknown): number {
  if (typeof a === 'bigint' || typeof b === 'bigint' || bsonTypeOf(a) === 'Long' || bsonTypeOf(b) === 'Long') {
    const exactA = exactInteger(a);
    const exactB = exactInteger(b);
    if (exactA !== undefined && exactB !== undefined) return exactA < exactB ? -1 : exactA > exactB ? 1 : 0;
  }
  return compareNumbers(toNumber(a), toNumber(b));
}

/** Total order over BSON values, as MongoDB sorts and indexes them. */
export function compareValues(a: unknown, b: unknown): number {
  // Fast paths for the values indexes and sorts meet most.
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number' && !Number.isNaN(a) && !Number.isNaN(b)) return a < b ? -1 : a > b ? 1 : 0;
  const rankA = typeRank(a);
  const rankB = typeRank(b);
  if (rankA !== rankB) return rankA - rankB;
  switch (rankA) {
    case 1:
    case 2:
    case 13:
      return 0;
    case 3:
      return compareNumeric(a, b);
    case 4:
      return compareStrings(String(a), String(b));
    case 5:
      return compareDocuments(a as Document, b as Document);
    case 6:
      return compareArrays(a as unknown[], b as unknown[]);
    case 7: {
      // MongoDB: by length, then by subtype, then byte by byte.
      const bytesA = binaryBytes(a);
      const bytesB = binaryBytes(b);
      if (bytesA.length !== bytesB.length) return bytesA.length - bytesB.length;
      const bySubtype = binarySubtype(a) - binarySubtype(b);
      return bySubtype !== 0 ? bySubtype : compareBytes(bytesA, bytesB);
    }
    case 8:
      return compareStrings((a as ObjectId).toHexString(), (b as ObjectId).toHexString());
    case 9:
      return Number(a) - Number(b);
    case 10:
      return compareNumbers((a as Date).getTime(), (b as Date).getTime());
    case 11:
      return (a as Timestamp).compare(b as Timestamp);
    default:
      return compareStrings(String(a), String(b));
  }
}

function compareDocuments(a: Document, b: Document): number {
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  for (let i = 0; i < Math.min(keysA.length, keysB.length); i += 1) {
    const byType = typeRank(a[keysA[i]]) - typeRank(b[keysB[i]]);
    if (byType !== 0) return byType;
    const byName = compareStrings(keysA[i], keysB[i]);
    if (byName !== 0) return byName;
    const byValue = compareValues(a[keysA[i]], b[keysB[i]]);
    if (byValue !== 0) return byValue;
  }
  return keysA.length - keysB.length;
}

function compareArrays(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const byValue = compareValues(a[i], b[i]);
    if (byValue !== 0) return byValue;
  }
  return a.length - b.length;
}

export function valuesEqual(a: unknown, b: unknown): boolean {
  return compareValues(a, b) === 0;
}

/**
 * A string that is equal for exactly the values MongoDB considers equal (1, 1.0 and Long 1 share
 * one key), used as a hash-map key by indexes, `distinct` and document identity.
 */
export function valueKey(value: unknown): string {
  switch (typeof value) {
    case 'number':
      return Object.is(value, -0) ? 'n0' : `n${value}`;
    case 'bigint':
      return `n${Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()}`;
    case 'string':
      return `s${value}`;
    case 'boolean':
      return value ? 'b1' : 'b0';
    case 'undefined':
      return 'z';
  }
  if (value === null) return 'z';
  if (Array.isArray(value)) return `[${value.map((element) => JSON.stringify(valueKey(element))).join(',')}]`;
  if (value instanceof Date) return `d${value.getTime()}`;
  if (value instanceof RegExp) return `r/${value.source}/${value.flags}`;
  if (value instanceof Uint8Array) return `x0:${Buffer.from(value).toString('base64')}`;
  switch (bsonTypeOf(value)) {
    case 'ObjectId':
      return `o${(value as ObjectId).toHexString()}`;
    case 'Long':
    case 'Int32':
    case 'Double': {
      const asNumber = toNumber(value);
      return Number.isSafeInteger(asNumber) || !Number.isInteger(asNumber) ? valueKey(asNumber) : `n${String(value)}`;
    }
    case 'Decimal128':
      return `n${String(value)}`;
    case 'Binary':
      return `x${(value as Binary).sub_type}:${Buffer.from(binaryBytes(value)).toString('base64')}`;
    case 'Timestamp':
      return `t${String(value)}`;
    case 'MinKey':
      return 'm-';
    case 'MaxKey':
      return 'm+';
  }
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .map((key) => `${JSON.stringify(key)}:${JSON.stringify(valueKey(value[key]))}`)
      .join(',')}}`;
  }
  return `?${String(value)}`;
}

/** A value written the way MongoDB's error messages show it (shell-like syntax). */
export function formatValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[ ${value.map(formatValue).join(', ')} ]`;
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (value instanceof RegExp) return String(value);
  switch (bsonTypeOf(value)) {
    case 'ObjectId':
      return `ObjectId('${(value as ObjectId).toHexString()}')`;
    case 'Long':
    case 'Int32':
    case 'Double':
    case 'Decimal128':
      return String(value);
  }
  if (isPlainObject(value)) return formatDocument(value);
  return String(value);
}

export function formatDocument(document: Document): string {
  const entries = Object.keys(document).map((key) => `${key}: ${formatValue(document[key])}`);
  return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
}

/** BSON type names as MongoDB's messages use them ("int", "string", "object"...). */
export function bsonTypeName(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  // A plain number is stored as the type it serialises as (numeric-types.ts).
  if (typeof value === 'number') return Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31 && !Object.is(value, -0) ? 'int' : 'double';
  if (typeof value === 'bigint') return 'long';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  if (value instanceof RegExp) return 'regex';
  const type = bsonTypeOf(value);
  if (type === 'ObjectId') return 'objectId';
  if (type === 'Binary') return 'binData';
  if (type === 'Long') return 'long';
  if (type === 'Double') return 'double';
  if (type === 'Int32') return 'int';
  if (type === 'Decimal128') return 'decimal';
  if (type === 'Timestamp') return 'timestamp';
  return 'object';
}

export function isNumeric(value: unknown): boolean {
  return typeRank(value) === 3;
}

/**
 * Sets an own field, including one named `__proto__` (a legal BSON field name, which plain
 * assignment would turn into a prototype change and lose).
 */
export function setOwn(target: Document, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Deep copy of a document tree: plain objects, arrays and Dates are copied; other BSON values
 * (ObjectId, Long, Binary...) are immutable in practice and shared.
 */
export function cloneValue<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneValue) as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (isPlainObject(value)) {
    const source: Document = value;
    const copy: Document = {};
    for (const key of Object.keys(source)) setOwn(copy, key, cloneValue(source[key]));
    return copy as T;
  }
  return value;
}
