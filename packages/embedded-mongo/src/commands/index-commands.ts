import type { Document } from 'bson';
import { valueKey } from '../bson-values';
import type { Collection } from '../collection';
import type { CommandHandler } from '../command-context';
import { CommandError, ErrorCode } from '../errors';
import { normalizeIndexSpec, sameIndexOptions, type IndexSpec } from '../indexes';
import { arrayArgument, assertSimpleCollation, collectionNameArgument } from './arguments';

function describe(spec: IndexSpec): string {
  return JSON.stringify(spec);
}

/** Checks a requested index against existing ones the way MongoDB does; true if it already exists. */
function alreadyExists(collection: Collection, spec: IndexSpec): boolean {
  for (const index of collection.indexes.values()) {
    const sameKey = valueKey(index.spec.key) === valueKey(spec.key);
    if (index.name === spec.name) {
      if (!sameKey) {
        throw new CommandError(
          ErrorCode.IndexKeySpecsConflict,
          `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${describe(spec)}, existing index: ${describe(index.spec)}`,
        );
      }
      if (!sameIndexOptions(index.spec, spec) && index.name !== '_id_') {
        throw new CommandError(
          ErrorCode.IndexOptionsConflict,
          `An equivalent index already exists with the same name but different options. Requested index: ${describe(spec)}, existing index: ${describe(index.spec)}`,
        );
      }
      return true;
    }
    if (sameKey && sameIndexOptions(index.spec, spec)) {
      throw new CommandError(ErrorCode.IndexOptionsConflict, `Index already exists with a different name: ${index.name}`);
    }
  }
  return false;
}

const createIndexes: CommandHandler = async (context) => {
  const { body, engine, database } = context;
  const name = collectionNameArgument(body, 'createIndexes');
  const rawSpecs = arrayArgument(body, 'indexes', 'createIndexes') as Document[];
  for (const raw of rawSpecs) if (raw !== null && typeof raw === 'object') assertSimpleCollation(raw.collation);
  const specs = rawSpecs.map((raw) => normalizeIndexSpec(raw));
  if (specs.length === 0) throw new CommandError(ErrorCode.BadValue, 'Must specify at least one index to create');
  await context.beginWrite();
  const createdCollectionAutomatically = !engine.storage.getCollection(database, name);
  const collection = engine.storage.ensureCollection(database, name);
  const before = collection.indexes.size;
  for (const spec of specs) {
    if (alreadyExists(collection, spec)) continue;
    collection.createIndex(spec);
  }
  const after = collection.indexes.size;
  return {
    numIndexesBefore: before,
    numIndexesAfter: after,
    ...(before === after ? { note: 'all indexes already exist' } : {}),
    createdCollectionAutomatically,
    ok: 1,
  };
};

const listIndexes: CommandHandler = ({ body, engine, database }) => {
  const name = collectionNameArgument(body, 'listIndexes');
  const collection = engine.storage.getCollection(database, name);
  if (!collection) throw new CommandError(ErrorCode.NamespaceNotFound, `ns does not exist: ${database}.${name}`);
  const entries = [...collection.indexes.values()].map(({ spec }) => {
    const { key, name: indexName, ...options } = spec;
    delete options.v;
    return { v: 2, key, name: indexName, ...options };
  });
  const batchSize = typeof body.cursor?.batchSize === 'number' ? body.cursor.batchSize : undefined;
  return engine.cursors.open(`${database}.${name}`, entries, { batchSize });
};

const dropIndexes: CommandHandler = async (context) => {
  const { body, engine, database } = context;
  const name = collectionNameArgument(body, 'dropIndexes' in body ? 'dropIndexes' : 'deleteIndexes');
  await context.beginWrite();
  const collection = engine.storage.getCollection(database, name);
  if (!collection) throw new CommandError(ErrorCode.NamespaceNotFound, `ns not found ${database}.${name}`);
  const before = collection.indexes.size;
  const target = body.index;
  const names: string[] = [];
  if (target === '*') {
    names.push(...[...collection.indexes.keys()].filter((indexName) => indexName !== '_id_'));
  } else if (typeof target === 'string') {
    names.push(target);
  } else if (Array.isArray(target)) {
    names.push(...target.map(String));
  } else if (target && typeof target === 'object') {
    const match = [...collection.indexes.values()].find((index) => valueKey(index.spec.key) === valueKey(target));
    if (!match) throw new CommandError(ErrorCode.IndexNotFound, `can't find index with key: ${JSON.stringify(target)}`);
    names.push(match.name);
  } else {
    throw new CommandError(ErrorCode.TypeMismatch, "BSON field 'dropIndexes.index' is the wrong type, expected types '[string, object, array]'");
  }
  for (const indexName of names) {
    if (indexName === '_id_') throw new CommandError(ErrorCode.InvalidOptions, 'cannot drop _id index');
    if (!collection.indexes.has(indexName)) throw new CommandError(ErrorCode.IndexNotFound, `index not found with name [${indexName}]`);
  }
  for (const indexName of names) collection.dropIndex(indexName);
  return { nIndexesWas: before, ok: 1 };
};

export const indexCommands: Record<string, CommandHandler> = {
  createIndexes,
  listIndexes,
  dropIndexes,
  deleteIndexes: dropIndexes,
};
