import type { Document } from 'bson';
import { bsonTypeName, isNumeric, isPlainObject } from '../bson-values';
import { CommandError, ErrorCode } from '../errors';

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
