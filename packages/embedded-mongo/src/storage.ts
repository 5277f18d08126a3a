import type { Document } from 'bson';
import { Collection, type PendingWriter } from './collection';
import { CommandError, ErrorCode } from './errors';
import { BlockedByTransaction } from './write-waits';

/** A collection an open transaction created: invisible to everyone else until it commits. */
interface Reservation {
  collection: Collection;
  owner: PendingWriter;
}

/** All databases of the engine: database name → collection name → collection. */
export class Storage {
  private readonly databases = new Map<string, Map<string, Collection>>();
  /** Collections created by open transactions, by namespace (`database.name`). */
  private readonly reservations = new Map<string, Reservation>();

  getCollection(database: string, name: string): Collection | undefined {
    return this.databases.get(database)?.get(name);
  }

  /** The collection, created on first write as MongoDB does implicitly. */
  ensureCollection(database: string, name: string): Collection {
    const existing = this.getCollection(database, name);
    if (existing) return existing;
    return this.createCollection(database, name, {});
  }

  /**
   * Creates a collection. One an open transaction has created under the same name makes this
   * wait (BlockedByTransaction) until that transaction commits (then it exists) or aborts.
   */
  createCollection(database: string, name: string, options: Document): Collection {
    assertValidCollectionName(database, name);
    const reservation = this.reservations.get(`${database}.${name}`);
    if (reservation) throw new BlockedByTransaction(reservation.owner);
    let collections = this.databases.get(database);
    if (!collections) this.databases.set(database, (collections = new Map()));
    if (collections.has(name)) {
      throw new CommandError(ErrorCode.NamespaceExists, `Collection ${database}.${name} already exists.`);
    }
    const collection = new Collection(database, name, options);
    collections.set(name, collection);
    return collection;
  }

  /** The collection `owner` (an open transaction) created under this name, if it did. */
  reservedCollection(database: string, name: string, owner: PendingWriter): Collection | undefined {
    const reservation = this.reservations.get(`${database}.${name}`);
    return reservation?.owner === owner ? reservation.collection : undefined;
  }

  /**
   * Creates a collection for an open transaction, seen by it alone until `publishReserved`. A name
   * another open transaction has reserved is a WriteConflict, as MongoDB's catalog lock answers.
   */
  reserveCollection(database: string, name: string, options: Document, owner: PendingWriter, conflict: () => Error): Collection {
    assertValidCollectionName(database, name);
    const namespace = `${database}.${name}`;
    const reservation = this.reservations.get(namespace);
    if (reservation && reservation.owner !== owner) throw conflict();
    if (reservation || this.getCollection(database, name)) {
      throw new CommandError(ErrorCode.NamespaceExists, `Collection ${namespace} already exists.`);
    }
    const collection = new Collection(database, name, options);
    this.reservations.set(namespace, { collection, owner });
    return collection;
  }

  /** Makes the collections `owner` created visible (its commit). */
  publishReserved(owner: PendingWriter): void {
    for (const [namespace, reservation] of this.reservations) {
      if (reservation.owner !== owner) continue;
      this.reservations.delete(namespace);
      const { collection } = reservation;
      let collections = this.databases.get(collection.database);
      if (!collections) this.databases.set(collection.database, (collections = new Map()));
      collections.set(collection.name, collection);
    }
  }

  /** Forgets the collections `owner` created (its abort). */
  releaseReserved(owner: PendingWriter): void {
    for (const [namespace, reservation] of this.reservations) if (reservation.owner === owner) this.reservations.delete(namespace);
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
    for (const reservation of [...this.reservations.values()]) if (reservation.collection.database === database) reservation.owner.abortForConflict();
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
