import type { Collection } from './collection';
import { collectPathValues } from './document-paths';
import type { EmbeddedLogger } from './logger';
import type { Storage } from './storage';

/**
 * Removes documents past their TTL index's `expireAfterSeconds`, like MongoDB's TTL monitor (which
 * also runs once a minute by default, so expiry is never exact). A document expires by the
 * earliest date in the indexed field; documents without a date there never expire.
 */
export function startTtlMonitor(storage: Storage, logger: EmbeddedLogger, intervalMs: number): () => void {
  const timer = setInterval(() => {
    try {
      removeExpiredDocuments(storage, Date.now());
    } catch (error) {
      logger.error({ err: error }, 'embedded mongo TTL pass failed');
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

export function removeExpiredDocuments(storage: Storage, now: number): number {
  let removed = 0;
  for (const database of storage.listDatabases()) {
    for (const collection of storage.listCollections(database)) {
      for (const index of collection.indexes.values()) {
        const seconds = index.spec.expireAfterSeconds;
        if (typeof seconds !== 'number' || index.fields.length !== 1) continue;
        removed += removeExpiredBy(collection, index.fields[0], now - seconds * 1000);
      }
    }
  }
  return removed;
}

function removeExpiredBy(collection: Collection, field: string, cutoff: number): number {
  const expired: string[] = [];
  for (const [documentKey, document] of collection.documents) {
    const dates = collectPathValues(document, field).filter((value): value is Date => value instanceof Date);
    if (dates.length > 0 && Math.min(...dates.map((date) => date.getTime())) <= cutoff) expired.push(documentKey);
  }
  for (const documentKey of expired) collection.delete(documentKey);
  return expired.length;
}
