import type { Document } from 'bson';
import { Collection, type WriteJournal } from './collection';
import { CommandError, ErrorCode } from './errors';

/** All databases of the engine: database name → collection name → collection. */
export class Storage {
  private readonly databases = new Map<string, Map<string, Collection>>();

  getCollection(database: string, name: string): Collection | undefined {
    return this.databases.get(database)?.get(name);
  }

  /** The collection, created on first write as MongoDB does implicitly. */
  ensureCollection(database: string, name: string, journal?: WriteJournal): Collection {
    const existing = this.getCollection(database, name);
    if (existing) return existing;
    return this.createCollection(database, name, {}, journal);
  }

  createCollection(database: string, name: string, options: Document, journal?: WriteJournal): Collection {
    assertValidCollectionName(database, name);
    let collections = this.databases.get(database);
    if (!collections) this.databases.set(database, (collections = new Map()));
    if (collections.has(name)) {
      throw new CommandError(ErrorCode.NamespaceExists, `Collection ${database}.${name} already exists.`);
    }
    const collection = new Collection(database, name, options);
    collections.set(name, collection);
    journal?.recordCollectionCreated(collection);
    return collection;
  }

  /** Removes the collection if it is still the given instance (a rollback must not drop a successor). */
  dropCollection(database: string, name: string, only?: Collection): boolean {
    const collections = this.databases.get(database);
    const existing = collections?.get(name);
    if (!collections || !existing || (only && existing !== only)) return false;
    abortPendingWriters(existing);
    collections.delete(name);
    if (collections.size === 0) this.databases.delete(database);
    return true;
  }

  renameCollection(database: string, from: string, toDatabase: string, to: string): void {
    const source = this.getCollection(database, from);
    if (!source) throw new CommandError(ErrorCode.NamespaceNotFound, 'source namespace does not exist');
    const target = this.createCollection(toDatabase, to, source.options);
    for (const index of source.indexes.values()) if (index.name !== '_id_') target.createIndex(index.spec);
    for (const document of source.documents.values()) target.insert(document);
    this.dropCollection(database, from);
  }

  dropDatabase(database: string): boolean {
    for (const collection of this.databases.get(database)?.values() ?? []) abortPendingWriters(collection);
    return this.databases.delete(database);
  }

  listCollections(database: string): Collection[] {
    return [...(this.databases.get(database)?.values() ?? [])];
  }

  listDatabases(): string[] {
    return [...this.databases.keys()].filter((name) => (this.databases.get(name)?.size ?? 0) > 0);
  }
}

/** A dropped collection's open transactions cannot commit into it: they abort (WriteConflict on their next statement). */
function abortPendingWriters(collection: Collection): void {
  for (const writer of new Set(collection.pendingWriters?.values() ?? [])) writer.abortForConflict();
}

function assertValidCollectionName(database: string, name: string): void {
  if (typeof name !== 'string' || name.length === 0 || name.includes('\0') || name.startsWith('.') || name.includes('$')) {
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid collection name: ${database}.${String(name)}`);
  }
  if (database.length === 0 || /[/\\. "$]/.test(database)) {
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid database name: '${database}'`);
  }
}
