import { MongoBulkWriteError, MongoServerError, type Document } from 'mongodb';
import { openTestDatabase, type TestDatabase } from './test-database';

function writeErrorOf(error: unknown): Document {
  expect(error).toBeInstanceOf(MongoServerError);
  const server = error as MongoServerError;
  if (server instanceof MongoBulkWriteError) return (server.writeErrors as unknown as Document[])[0];
  return server as unknown as Document;
}

describe('embedded engine: collections and indexes', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await openTestDatabase('ddl');
  });

  afterAll(async () => {
    await database.close();
  });

  describe('collections', () => {
    it('creates collections explicitly and implicitly, refusing to create one twice', async () => {
      await database.db.createCollection('explicit');
      await database.db.collection('implicit').insertOne({ a: 1 });
      await expect(database.db.createCollection('explicit')).rejects.toMatchObject({ code: 48, codeName: 'NamespaceExists' });
      const names = (await database.db.listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name);
      expect(names).toEqual(expect.arrayContaining(['explicit', 'implicit']));
    });

    it('filters listCollections by name and describes each collection', async () => {
      await database.db.createCollection('described');
      const [entry] = await database.db.listCollections({ name: 'described' }).toArray();
      expect(entry).toMatchObject({ name: 'described', type: 'collection', idIndex: { key: { _id: 1 }, name: '_id_' } });
      const nameOnly = await database.db.listCollections({ name: 'described' }, { nameOnly: true }).toArray();
      expect(nameOnly).toEqual([{ name: 'described', type: 'collection' }]);
      expect(await database.db.listCollections({ name: 'nope' }).toArray()).toEqual([]);
    });

    it('drops a collection with its data and indexes', async () => {
      const doomed = database.db.collection('doomed');
      await doomed.insertOne({ a: 1 });
      await doomed.createIndex({ a: 1 });
      expect(await doomed.drop()).toBe(true);
      expect(await database.db.listCollections({ name: 'doomed' }).toArray()).toEqual([]);
      expect(await doomed.countDocuments()).toBe(0);
    });

    it('drops a whole database and lists databases', async () => {
      const other = database.client.db(`${database.db.databaseName}_other`);
      await other.collection('c').insertOne({ a: 1 });
      const listed = await database.client.db('admin').admin().listDatabases();
      expect(listed.databases.map((entry) => entry.name)).toContain(other.databaseName);
      expect(await other.dropDatabase()).toBe(true);
      const after = await database.client.db('admin').admin().listDatabases();
      expect(after.databases.map((entry) => entry.name)).not.toContain(other.databaseName);
    });

    it('renames a collection', async () => {
      const source = database.db.collection('rename_source');
      await source.insertOne({ a: 1 });
      await source.rename('rename_target');
      expect(await database.db.collection('rename_target').countDocuments()).toBe(1);
      expect(await database.db.listCollections({ name: 'rename_source' }).toArray()).toEqual([]);
    });
  });

  describe('indexes', () => {
    it('always lists the _id_ index and lists created indexes with their options', async () => {
      const people = database.db.collection('people');
      await people.createIndex({ email: 1 }, { unique: true });
      await people.createIndex({ lastName: 1, firstName: -1 }, { name: 'by_name' });
      const indexes = await people.listIndexes().toArray();
      expect(indexes).toEqual([
        { v: 2, key: { _id: 1 }, name: '_id_' },
        { v: 2, key: { email: 1 }, name: 'email_1', unique: true },
        { v: 2, key: { lastName: 1, firstName: -1 }, name: 'by_name' },
      ]);
    });

    it('treats re-creating an identical index as a no-op and conflicting definitions as errors', async () => {
      const things = database.db.collection('things');
      await things.createIndex({ code: 1 }, { unique: true });
      const again = await database.db.command({ createIndexes: 'things', indexes: [{ key: { code: 1 }, name: 'code_1', unique: true }] });
      expect(again.numIndexesBefore).toBe(again.numIndexesAfter);
      await expect(things.createIndex({ code: 1 }, { name: 'other_name', unique: true })).rejects.toMatchObject({ code: 85 });
      await expect(things.createIndex({ other: 1 }, { name: 'code_1' })).rejects.toMatchObject({ code: 86 });
      await expect(things.createIndex({ code: 1 }, { name: 'code_1' })).rejects.toMatchObject({ code: 85 });
    });

    it('drops indexes by name, by key pattern and all at once, but never _id_', async () => {
      const dropped = database.db.collection('dropped_indexes');
      await dropped.createIndexes([{ key: { a: 1 } }, { key: { b: 1 } }, { key: { c: 1 } }]);
      await dropped.dropIndex('a_1');
      await database.db.command({ dropIndexes: 'dropped_indexes', index: { b: 1 } });
      expect((await dropped.listIndexes().toArray()).map((index) => index.name)).toEqual(['_id_', 'c_1']);
      await expect(dropped.dropIndex('_id_')).rejects.toMatchObject({ code: 72 });
      await expect(dropped.dropIndex('missing_1')).rejects.toMatchObject({ code: 27 });
      await dropped.dropIndexes();
      expect((await dropped.listIndexes().toArray()).map((index) => index.name)).toEqual(['_id_']);
    });

    it('fails listIndexes on a missing collection with NamespaceNotFound', async () => {
      await expect(database.db.collection('no_such').listIndexes().toArray()).rejects.toMatchObject({ code: 26 });
    });
  });

  describe('unique indexes', () => {
    it('rejects a duplicate on a single-field unique index with E11000, keyPattern and keyValue', async () => {
      const users = database.db.collection('unique_users');
      await users.createIndex({ email: 1 }, { unique: true });
      await users.insertOne({ email: 'a@example.com' });
      const error = writeErrorOf(await users.insertOne({ email: 'a@example.com' }).catch((caught: unknown) => caught));
      expect(error.code).toBe(11000);
      expect(error.keyPattern).toEqual({ email: 1 });
      expect(error.keyValue).toEqual({ email: 'a@example.com' });
      expect(error.errmsg ?? error.message).toMatch(/^E11000 duplicate key error collection: \S+\.unique_users index: email_1 dup key: \{ email: "a@example.com" \}$/);
    });

    it('enforces a compound unique index on the combination only', async () => {
      const seats = database.db.collection('unique_seats');
      await seats.createIndex({ flight: 1, seat: 1 }, { unique: true });
      await seats.insertMany([
        { flight: 'X1', seat: '1A' },
        { flight: 'X1', seat: '1B' },
        { flight: 'X2', seat: '1A' },
      ]);
      const error = writeErrorOf(await seats.insertOne({ flight: 'X1', seat: '1A' }).catch((caught: unknown) => caught));
      expect(error.code).toBe(11000);
      expect(error.keyPattern).toEqual({ flight: 1, seat: 1 });
      expect(error.keyValue).toEqual({ flight: 'X1', seat: '1A' });
      expect(error.errmsg ?? error.message).toMatch(/index: flight_1_seat_1 dup key: \{ flight: "X1", seat: "1A" \}/);
    });

    it('enforces uniqueness on updates, upserts and multi-updates', async () => {
      const codes = database.db.collection('unique_codes');
      await codes.createIndex({ code: 1 }, { unique: true });
      await codes.insertMany([{ code: 'a' }, { code: 'b' }]);
      await expect(codes.updateOne({ code: 'a' }, { $set: { code: 'b' } })).rejects.toMatchObject({ code: 11000, keyValue: { code: 'b' } });
      await expect(codes.updateOne({ code: 'zzz' }, { $set: { code: 'a' } }, { upsert: true })).rejects.toMatchObject({ code: 11000 });
      await expect(codes.updateMany({}, { $set: { code: 'same' } })).rejects.toMatchObject({ code: 11000 });
      expect((await codes.find({}, { projection: { _id: 0 } }).sort({ code: 1 }).toArray()).map((doc) => doc.code)).toEqual(['b', 'same']);
    });

    it('treats missing fields as null in a unique index unless it is sparse', async () => {
      const dense = database.db.collection('unique_dense');
      await dense.createIndex({ nick: 1 }, { unique: true });
      await dense.insertOne({ other: 1 });
      await expect(dense.insertOne({ other: 2 })).rejects.toMatchObject({ code: 11000, keyValue: { nick: null } });
      const sparse = database.db.collection('unique_sparse');
      await sparse.createIndex({ nick: 1 }, { unique: true, sparse: true });
      await sparse.insertMany([{ other: 1 }, { other: 2 }, { nick: 'x' }]);
      await expect(sparse.insertOne({ nick: 'x' })).rejects.toMatchObject({ code: 11000 });
    });

    it('only enforces a partial unique index on documents matching its filter', async () => {
      const partial = database.db.collection('unique_partial');
      await partial.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { active: true } });
      await partial.insertMany([
        { email: 'a', active: false },
        { email: 'a', active: false },
        { email: 'a', active: true },
      ]);
      await expect(partial.insertOne({ email: 'a', active: true })).rejects.toMatchObject({ code: 11000 });
      expect(await partial.countDocuments({ email: 'a' })).toBe(3);
    });

    it('refuses to build a unique index over existing duplicates', async () => {
      const existing = database.db.collection('unique_build');
      await existing.insertMany([{ k: 1 }, { k: 1 }]);
      await expect(existing.createIndex({ k: 1 }, { unique: true })).rejects.toMatchObject({ code: 11000, keyValue: { k: 1 } });
      expect((await existing.listIndexes().toArray()).map((index) => index.name)).toEqual(['_id_']);
    });

    it('finds documents through indexes exactly as through a scan: equality, $in and ranges', async () => {
      const indexed = database.db.collection('indexed_lookup');
      const plain = database.db.collection('plain_lookup');
      const docs = Array.from({ length: 300 }, (_, i) => ({ n: i % 50, s: `k${i % 7}`, when: new Date(2026, 0, 1 + (i % 30)), tags: [i % 3, i % 4] }));
      await indexed.createIndexes([{ key: { n: 1 } }, { key: { s: 1 } }, { key: { when: -1 } }, { key: { tags: 1 } }]);
      await indexed.insertMany(docs.map((doc) => ({ ...doc })));
      await plain.insertMany(docs.map((doc) => ({ ...doc })));
      const filters: Document[] = [
        { n: 7 },
        { n: { $eq: 7 } },
        { n: { $in: [1, 2, 49] } },
        { n: { $gt: 10, $lte: 20 } },
        { n: { $lt: 3 } },
        { s: { $gte: 'k3' } },
        { when: { $gte: new Date(2026, 0, 10), $lt: new Date(2026, 0, 12) } },
        { tags: 2 },
        { tags: { $gt: 1, $lt: 3 } },
        { $and: [{ n: 5 }, { s: 'k5' }] },
        { n: 'not a number' },
        { n: { $gt: 'a' } },
        { tags: { $in: [0, 3] }, n: { $gte: 25 } },
        { 'tags.1': 3 },
      ];
      for (const filter of filters) {
        const viaIndex = await indexed.find(filter, { projection: { _id: 0 } }).sort({ n: 1, s: 1, when: 1 }).toArray();
        const viaScan = await plain.find(filter, { projection: { _id: 0 } }).sort({ n: 1, s: 1, when: 1 }).toArray();
        // Wrapped in $and, the filter takes the general query path rather than the simple-filter one.
        const viaGeneralMatcher = await plain.find({ $and: [filter] }, { projection: { _id: 0 } }).sort({ n: 1, s: 1, when: 1 }).toArray();
        expect({ filter, docs: viaIndex }).toEqual({ filter, docs: viaScan });
        expect({ filter, docs: viaGeneralMatcher }).toEqual({ filter, docs: viaScan });
        expect(viaScan.length).toBeLessThan(docs.length);
      }
    });

    it('keeps indexes in step with updates and deletes', async () => {
      const moving = database.db.collection('moving');
      await moving.createIndex({ slot: 1 }, { unique: true });
      await moving.insertMany([{ slot: 1 }, { slot: 2 }]);
      await moving.updateOne({ slot: 1 }, { $set: { slot: 3 } });
      await moving.insertOne({ slot: 1 });
      await moving.deleteOne({ slot: 2 });
      await moving.insertOne({ slot: 2 });
      expect(await moving.countDocuments({ slot: { $in: [1, 2, 3] } })).toBe(3);
      expect(await moving.countDocuments({ slot: 3 })).toBe(1);
    });
  });
});
