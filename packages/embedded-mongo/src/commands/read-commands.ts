import { Long } from 'bson';
import { compareValues, isPlainObject, valueKey } from '../bson-values';
import type { CommandHandler } from '../command-context';
import { collectPathValues } from '../document-paths';
import { CommandError, ErrorCode, unsupportedFeature } from '../errors';
import { compileProjection } from '../projection';
import { findMatchingDocuments } from '../query-execution';
import { assertHintExists, letVariables, collectionNameArgument, documentArgument, integerArgument, nonNegativeIntegerArgument } from './arguments';

/** find options that change what comes back and that the engine does not implement. */
const UNSUPPORTED_FIND_OPTIONS = ['min', 'max', 'returnKey', 'showRecordId', 'tailable', 'awaitData'];

const find: CommandHandler = ({ engine, body, database }) => {
  const name = collectionNameArgument(body, 'find');
  for (const option of UNSUPPORTED_FIND_OPTIONS) {
    const value = body[option];
    if (value !== undefined && value !== null && value !== false) throw unsupportedFeature(`The find option '${option}'`);
  }
  const filter = documentArgument(body, 'filter', 'find');
  const sort = documentArgument(body, 'sort', 'find');
  const projection = documentArgument(body, 'projection', 'find');
  const skip = nonNegativeIntegerArgument(body, 'skip', 'find');
  const rawLimit = integerArgument(body, 'limit', 'find');
  const batchSize = nonNegativeIntegerArgument(body, 'batchSize', 'find');
  // A negative limit is the legacy spelling of "limit, in a single batch".
  const limit = rawLimit === undefined || rawLimit === 0 ? undefined : Math.abs(rawLimit);
  const singleBatch = body.singleBatch === true || (rawLimit !== undefined && rawLimit < 0);
  const collection = engine.storage.getCollection(database, name);
  assertHintExists(collection, body.hint);
  // hint {$natural: -1} without a sort returns the documents in reverse insertion order.
  const naturalHint = isPlainObject(body.hint) && Object.keys(body.hint).length === 1 && Number(body.hint.$natural) === -1;
  const order = sort && Object.keys(sort).length > 0 ? sort : naturalHint ? { $natural: -1 } : sort;
  const documents = findMatchingDocuments(collection, filter, { sort: order, skip, limit, variables: letVariables(body), hint: body.hint });
  return engine.cursors.open(`${database}.${name}`, documents, {
    batchSize: singleBatch && batchSize === undefined ? Number.POSITIVE_INFINITY : batchSize,
    singleBatch,
    project: compileProjection(projection, filter),
  });
};

const getMore: CommandHandler = ({ engine, body, database }) => {
  const id = Number(body.getMore);
  if (!Number.isFinite(id)) throw new CommandError(ErrorCode.TypeMismatch, "BSON field 'getMore.getMore' is the wrong type, expected type 'long'");
  const namespace = engine.cursors.namespaceOf(id);
  if (namespace !== undefined && typeof body.collection === 'string' && namespace !== `${database}.${body.collection}`) {
    throw new CommandError(ErrorCode.IllegalOperation, `Requested getMore on namespace '${database}.${body.collection}', but cursor belongs to a different namespace ${namespace}`);
  }
  return engine.cursors.getMore(id, nonNegativeIntegerArgument(body, 'batchSize', 'getMore'));
};

const killCursors: CommandHandler = ({ engine, body }) => {
  const ids = Array.isArray(body.cursors) ? body.cursors : [];
  const killed: Long[] = [];
  const notFound: Long[] = [];
  for (const raw of ids) {
    const id = Number(raw);
    (engine.cursors.kill(id) ? killed : notFound).push(Long.fromNumber(id));
  }
  return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
};

const count: CommandHandler = ({ engine, body, database }) => {
  const name = collectionNameArgument(body, 'count');
  const query = documentArgument(body, 'query', 'count');
  const skip = nonNegativeIntegerArgument(body, 'skip', 'count');
  const limit = integerArgument(body, 'limit', 'count');
  const collection = engine.storage.getCollection(database, name);
  assertHintExists(collection, body.hint);
  if (!collection) return { n: 0, ok: 1 };
  if (!query || Object.keys(query).length === 0) {
    const total = Math.max(0, collection.size - (skip ?? 0));
    return { n: limit ? Math.min(total, Math.abs(limit)) : total, ok: 1 };
  }
  const matches = findMatchingDocuments(collection, query, { skip, limit: limit ? Math.abs(limit) : undefined, hint: body.hint });
  return { n: matches.length, ok: 1 };
};

const distinct: CommandHandler = ({ engine, body, database }) => {
  const name = collectionNameArgument(body, 'distinct');
  if (typeof body.key !== 'string') throw new CommandError(ErrorCode.TypeMismatch, "BSON field 'distinct.key' is the wrong type, expected type 'string'");
  const key = body.key;
  const query = documentArgument(body, 'query', 'distinct');
  const values = new Map<string, unknown>();
  const collection = engine.storage.getCollection(database, name);
  assertHintExists(collection, body.hint);
  for (const document of findMatchingDocuments(collection, query, { hint: body.hint })) {
    for (const value of collectPathValues(document, key)) {
      const identity = valueKey(value);
      if (!values.has(identity)) values.set(identity, value);
    }
  }
  return { values: [...values.values()].sort(compareValues), ok: 1 };
};

export const readCommands: Record<string, CommandHandler> = { find, getMore, killCursors, count, distinct };
