import { createHash } from 'node:crypto';
import { EJSON } from 'bson';
import type { Connection } from 'mongoose';

/**
 * A digest of every document of every collection (in _id order), read through the driver: two equal
 * digests mean the database did not change between them. Background bookkeeping that follows an
 * earlier, accepted write is left out: the webhook worker's collections and the `webhooksDispatched`
 * flag of change events (the events themselves count: a refused write must not add one).
 */
export async function databaseDigest(connection: Connection): Promise<string> {
  const db = connection.db!;
  const hash = createHash('sha256');
  const collections = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).filter((name) => !name.startsWith('webhook_')).sort();
  for (const name of collections) {
    hash.update(`\u0000${name}\u0000`);
    const projection = name === 'change_events' ? { webhooksDispatched: 0 } : {};
    for await (const doc of db.collection(name).find({}, { sort: { _id: 1 }, projection })) hash.update(EJSON.stringify(doc, { relaxed: false }));
  }
  return hash.digest('hex');
}
