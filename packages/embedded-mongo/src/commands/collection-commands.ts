import type { Document } from 'bson';
import { Query } from 'mingo';
import type { CommandHandler } from '../command-context';
import { CommandError, ErrorCode, unsupportedFeature } from '../errors';
import { collectionNameArgument, documentArgument } from './arguments';

/**
 * Schema validation is not implemented: a collection created with a validator would accept the
 * documents MongoDB refuses, so the option is refused (an empty validator, or validation turned
 * off, changes nothing and is accepted).
 */
function assertNoValidator(body: Document): void {
  const validator = body.validator;
  const hasValidator = validator !== undefined && validator !== null && !(typeof validator === 'object' && Object.keys(validator).length === 0);
  if (hasValidator && body.validationLevel !== 'off') {
    throw new CommandError(
      ErrorCode.CommandNotSupported,
      'collection validators are not supported by the embedded development engine; set MONGODB_URI to use a real MongoDB.',
    );
  }
}

const create: CommandHandler = async (context) => {
  const name = collectionNameArgument(context.body, 'create');
  assertNoValidator(context.body);
  for (const option of ['capped', 'viewOn', 'timeseries', 'clusteredIndex']) {
    const value = context.body[option];
    if (value !== undefined && value !== null && value !== false) throw unsupportedFeature(`The create option '${option}'`);
  }
  const options: Document = {};
  for (const [key, value] of Object.entries(context.body)) {
    if (key === 'create' || key.startsWith('$') || ['lsid', 'txnNumber', 'autocommit', 'startTransaction', 'writeConcern', 'readConcern', 'apiVersion', 'apiStrict', 'apiDeprecationErrors', 'comment'].includes(key)) continue;
    options[key] = value;
  }
  await context.beginWrite();
  context.engine.storage.createCollection(context.database, name, options);
  return { ok: 1 };
};

const drop: CommandHandler = async (context) => {
  const name = collectionNameArgument(context.body, 'drop');
  await context.beginWrite();
  const collection = context.engine.storage.getCollection(context.database, name);
  // Since MongoDB 7.0 dropping a missing collection succeeds.
  if (!collection) return { ok: 1 };
  context.engine.storage.dropCollection(context.database, name);
  return { nIndexesWas: collection.indexes.size, ns: collection.namespace, ok: 1 };
};

const dropDatabase: CommandHandler = async (context) => {
  await context.beginWrite();
  context.engine.storage.dropDatabase(context.database);
  return { dropped: context.database, ok: 1 };
};

const listCollections: CommandHandler = ({ engine, body, database }) => {
  const filter = documentArgument(body, 'filter', 'listCollections');
  const nameOnly = body.nameOnly === true;
  const entries = engine.storage.listCollections(database).map((collection) =>
    nameOnly
      ? { name: collection.name, type: 'collection' }
      : {
          name: collection.name,
          type: 'collection',
          options: collection.options,
          info: { readOnly: false, uuid: collection.uuid },
          idIndex: { v: 2, key: { _id: 1 }, name: '_id_' },
        },
  );
  const query = filter && Object.keys(filter).length > 0 ? new Query(filter, {}) : undefined;
  const matching = query ? entries.filter((entry) => query.test(entry)) : entries;
  const cursorOptions = documentArgument(body, 'cursor', 'listCollections');
  return engine.cursors.open(`${database}.$cmd.listCollections`, matching, { batchSize: numberOr(cursorOptions?.batchSize) });
};

const listDatabases: CommandHandler = ({ engine, body }) => {
  const nameOnly = body.nameOnly === true;
  const filter = documentArgument(body, 'filter', 'listDatabases');
  const entries = engine.storage.listDatabases().map((name) => (nameOnly ? { name } : { name, sizeOnDisk: 0, empty: false }));
  const query = filter && Object.keys(filter).length > 0 ? new Query(filter, {}) : undefined;
  const databases = query ? entries.filter((entry) => query.test(entry)) : entries;
  return nameOnly ? { databases, ok: 1 } : { databases, totalSize: 0, totalSizeMb: 0, ok: 1 };
};

/** `renameCollection` runs against `admin` with full namespaces: `{renameCollection: 'db.a', to: 'db.b'}`. */
const renameCollection: CommandHandler = async (context) => {
  const { body, engine } = context;
  const split = (namespace: unknown): [string, string] => {
    if (typeof namespace !== 'string' || !namespace.includes('.')) {
      throw new CommandError(ErrorCode.InvalidNamespace, `Invalid namespace specified '${String(namespace)}'`);
    }
    const dot = namespace.indexOf('.');
    return [namespace.slice(0, dot), namespace.slice(dot + 1)];
  };
  const [fromDatabase, from] = split(body.renameCollection);
  const [toDatabase, to] = split(body.to);
  await context.beginWrite();
  if (!engine.storage.getCollection(fromDatabase, from)) throw new CommandError(ErrorCode.NamespaceNotFound, 'source namespace does not exist');
  if (engine.storage.getCollection(toDatabase, to)) {
    if (body.dropTarget !== true) throw new CommandError(ErrorCode.NamespaceExists, 'target namespace exists');
    engine.storage.dropCollection(toDatabase, to);
  }
  engine.storage.renameCollection(fromDatabase, from, toDatabase, to);
  return { ok: 1 };
};

const collStats: CommandHandler = ({ engine, body, database }) => {
  const name = collectionNameArgument(body, 'collStats');
  const collection = engine.storage.getCollection(database, name);
  return { ns: `${database}.${name}`, count: collection?.size ?? 0, size: 0, storageSize: 0, nindexes: collection?.indexes.size ?? 0, ok: 1 };
};

const dbStats: CommandHandler = ({ engine, database }) => {
  const collections = engine.storage.listCollections(database);
  return {
    db: database,
    collections: collections.length,
    objects: collections.reduce((total, collection) => total + collection.size, 0),
    indexes: collections.reduce((total, collection) => total + collection.indexes.size, 0),
    dataSize: 0,
    storageSize: 0,
    ok: 1,
  };
};

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

export const collectionCommands: Record<string, CommandHandler> = {
  create,
  drop,
  dropDatabase,
  listCollections,
  listDatabases,
  renameCollection,
  collStats,
  dbStats,
};
