import { MongoServerError, MongoWriteConcernError, type Document } from 'mongodb';
import { isEmbeddedEngine, openTestDatabase, seededCollection, serverError, type TestDatabase } from './test-database';
import { itWithTransactions } from './topology';

/**
 * Options and operators that change results must either work as in MongoDB or be refused with
 * MongoDB's error shape, never be ignored. Where the engine refuses a feature MongoDB has, the
 * error is CommandNotSupported (115) naming MONGODB_URI; those expectations only apply to the
 * embedded engine. Everything else is MongoDB's own answer and holds against a real server too.
 */
describe('embedded engine: loud where it differs from MongoDB', () => {
  let database: TestDatabase;
  let embedded: boolean;

  beforeAll(async () => {
    database = await openTestDatabase('loud');
    embedded = await isEmbeddedEngine(database.db);
  });

  afterAll(async () => {
    await database.close();
  });

  const seeded = (name: string, documents: Document[] = [{ _id: 1, a: 1 }, { _id: 2, a: 2 }]) => seededCollection(database, name, documents);

  const failure = serverError;

  function expectNotSupported(error: MongoServerError): void {
    if (!embedded) return;
    expect(error.code).toBe(115);
    expect(error.message).toMatch(/MONGODB_URI/);
  }

  describe('hint', () => {
    const unknownIndex = /hint provided does not correspond to an existing index/;

    it('refuses a hint naming no index with BadValue (2) on find, count, aggregate, update, delete and findAndModify', async () => {
      const items = await seeded('hint_unknown');
      const attempts: Array<Promise<unknown>> = [
        items.find({ a: 1 }, { hint: 'no_such_index' }).toArray(),
        items.find({ a: 1 }, { hint: { missing: 1 } }).toArray(),
        items.countDocuments({ a: 1 }, { hint: 'no_such_index' }),
        items.aggregate([{ $match: { a: 1 } }], { hint: 'no_such_index' }).toArray(),
        items.updateOne({ a: 1 }, { $set: { b: 1 } }, { hint: 'no_such_index' }),
        items.deleteOne({ a: 1 }, { hint: { missing: 1 } }),
        items.findOneAndUpdate({ a: 1 }, { $set: { b: 1 } }, { hint: { missing: 1 } }),
      ];
      for (const attempt of attempts) {
        const error = await failure(attempt);
        expect(error.code).toBe(2);
        expect(error.message).toMatch(unknownIndex);
      }
      expect(await items.countDocuments({ b: 1 })).toBe(0);
      expect(await items.countDocuments()).toBe(2);
    });

    it('accepts a hint naming an existing index by name or key pattern, and $natural', async () => {
      const items = await seeded('hint_known');
      await items.createIndex({ a: 1 }, { name: 'by_a' });
      expect(await items.find({ a: 2 }, { hint: 'by_a' }).toArray()).toEqual([{ _id: 2, a: 2 }]);
      expect(await items.find({ a: 2 }, { hint: { a: 1 } }).toArray()).toEqual([{ _id: 2, a: 2 }]);
      expect(await items.find({ a: 2 }, { hint: { $natural: 1 } }).toArray()).toEqual([{ _id: 2, a: 2 }]);
      expect((await items.updateOne({ a: 1 }, { $set: { b: 1 } }, { hint: { _id: 1 } })).modifiedCount).toBe(1);
    });
  });

  describe('collation', () => {
    const french = { locale: 'fr', strength: 1 };

    it('refuses a non-simple collation on every command that takes one', async () => {
      const items = await seeded('collation_refused', [{ _id: 1, name: 'Élodie' }]);
      const attempts: Array<Promise<unknown>> = [
        items.find({ name: 'elodie' }, { collation: french }).toArray(),
        items.aggregate([{ $match: { name: 'elodie' } }], { collation: french }).toArray(),
        items.countDocuments({ name: 'elodie' }, { collation: french }),
        items.distinct('name', {}, { collation: french }),
        items.updateOne({ name: 'elodie' }, { $set: { seen: true } }, { collation: french }),
        items.deleteMany({ name: 'elodie' }, { collation: french }),
        items.findOneAndDelete({ name: 'elodie' }, { collation: french }),
        items.createIndex({ name: 1 }, { collation: french }),
        database.db.createCollection('collation_created', { collation: french }),
      ];
      for (const attempt of attempts) {
        const error = await failure(attempt);
        expectNotSupported(error);
      }
      if (embedded) expect(await items.findOne({ _id: 1 } as Document)).toEqual({ _id: 1, name: 'Élodie' });
    });

    it("accepts the default {locale: 'simple'} collation", async () => {
      const items = await seeded('collation_simple', [{ _id: 1, name: 'a' }, { _id: 2, name: 'A' }]);
      expect(await items.find({ name: 'a' }, { collation: { locale: 'simple' } }).toArray()).toEqual([{ _id: 1, name: 'a' }]);
      expect((await items.deleteOne({ name: 'A' }, { collation: { locale: 'simple' } })).deletedCount).toBe(1);
    });
  });

  describe('write concern', () => {
    it('reports w above the number of members as UnsatisfiableWriteConcern (100) after applying the write', async () => {
      const items = database.db.collection('write_concern_w2');
      const error = await items.insertOne({ _id: 1 } as Document, { writeConcern: { w: 2, wtimeoutMS: 1000 } }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MongoWriteConcernError);
      expect((error as MongoWriteConcernError).code).toBe(100);
      expect(await items.countDocuments({ _id: 1 } as Document)).toBe(1);
    });

    it('reports an unknown tag as UnknownReplWriteConcern (79)', async () => {
      const items = database.db.collection('write_concern_tag');
      const error = await items.updateOne({ _id: 1 } as Document, { $set: { a: 1 } }, { upsert: true, writeConcern: { w: 'eastCoast' as 'majority' } }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MongoWriteConcernError);
      expect((error as MongoWriteConcernError).code).toBe(79);
    });

    it("satisfies w: 1 (with j) and w: 'majority'", async () => {
      const items = database.db.collection('write_concern_ok');
      await items.insertOne({ _id: 1 } as Document, { writeConcern: { w: 'majority' } });
      await items.insertOne({ _id: 2 } as Document, { writeConcern: { w: 1, journal: true } });
      expect(await items.countDocuments()).toBe(2);
    });
  });

  describe('refused features', () => {
    it('refuses snapshot reads outside a transaction', async () => {
      if (!embedded) return;
      const items = await seeded('snapshot_reads');
      const error = await failure(items.find({}, { readConcern: { level: 'snapshot' } }).toArray());
      expectNotSupported(error);
    });

    itWithTransactions('accepts snapshot reads inside a transaction', async () => {
      const items = await seeded('snapshot_in_transaction');
      const session = database.client.startSession();
      try {
        const seen = await session.withTransaction(
          async () => (await items.find({}, { session, sort: { _id: 1 } }).toArray()).map((document) => document._id),
          { readConcern: { level: 'snapshot' } },
        );
        expect(seen).toEqual([1, 2]);
      } finally {
        await session.endSession();
      }
    });

    it("honours constant 'let' variables in find, aggregate, update, delete and findAndModify", async () => {
      const items = await seeded('let_variables', [{ _id: 1, a: 1 }, { _id: 2, a: 2 }, { _id: 3, a: 3 }]);
      const wantsVariable = { $expr: { $eq: ['$a', '$$wanted'] } };
      expect(await items.find(wantsVariable, { let: { wanted: 2 } }).toArray()).toEqual([{ _id: 2, a: 2 }]);
      const aggregated = await items.aggregate([{ $match: { $expr: { $gte: ['$a', '$$low'] } } }, { $project: { a: 1, tag: '$$tag' } }], { let: { low: 2, tag: 'x' } }).toArray();
      expect(aggregated).toEqual([{ _id: 2, a: 2, tag: 'x' }, { _id: 3, a: 3, tag: 'x' }]);
      const updated = await items.updateMany({ $expr: { $lte: ['$a', '$$limit'] } }, [{ $set: { b: '$$label' } }], { let: { limit: 2, label: 'low' } });
      expect(updated.modifiedCount).toBe(2);
      const changed = await items.findOneAndUpdate(wantsVariable, { $set: { c: true } }, { let: { wanted: 3 }, returnDocument: 'after' });
      expect(changed).toEqual({ _id: 3, a: 3, c: true });
      expect((await items.deleteMany(wantsVariable, { let: { wanted: 1 } })).deletedCount).toBe(1);
      expect(await items.find({}, { sort: { _id: 1 } }).toArray()).toEqual([
        { _id: 2, a: 2, b: 'low' },
        { _id: 3, a: 3, c: true },
      ]);
    });

    it("refuses 'let' variables defined by expressions", async () => {
      if (!embedded) return;
      const items = await seeded('let_expressions');
      expectNotSupported(await failure(items.find({ $expr: { $eq: ['$a', '$$wanted'] } }, { let: { wanted: { $add: [0, 1] } } }).toArray()));
    });

    it('refuses capped collections, views and time series', async () => {
      if (!embedded) return;
      expectNotSupported(await failure(database.db.createCollection('capped_log', { capped: true, size: 4096 })));
      expectNotSupported(await failure(database.db.createCollection('a_view', { viewOn: 'elsewhere', pipeline: [] })));
      expectNotSupported(await failure(database.db.createCollection('series', { timeseries: { timeField: 'at' } })));
      const names = (await database.db.listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name);
      expect(names).not.toContain('capped_log');
    });

    it('refuses schema validators', async () => {
      if (!embedded) return;
      const error = await failure(database.db.createCollection('validated', { validator: { $jsonSchema: { required: ['name'] } } }));
      expectNotSupported(error);
      const collMod = await failure(database.db.command({ collMod: 'validated', validator: { name: { $type: 'string' } } }));
      expect(collMod.code).toBe(59);
    });

    it('answers $text without a text index with IndexNotFound (27), and refuses it with one', async () => {
      const items = await seeded('text_search', [{ _id: 1, body: 'hello world' }]);
      const error = await failure(items.find({ $text: { $search: 'hello' } }).toArray());
      expect(error.code).toBe(27);
      expect(error.message).toMatch(/text index required for \$text query/);
      await items.createIndex({ body: 'text' });
      if (embedded) expectNotSupported(await failure(items.find({ $text: { $search: 'hello' } }).toArray()));
    });

    it('refuses $where', async () => {
      if (!embedded) return;
      const items = await seeded('where_clause');
      expectNotSupported(await failure(items.find({ $where: 'this.a === 1' }).toArray()));
      expectNotSupported(await failure(items.deleteMany({ $or: [{ $where: 'true' }] })));
      expect(await items.countDocuments()).toBe(2);
    });

    it('refuses geo queries: $near without a geo index as MongoDB (291), the rest as unsupported', async () => {
      const places = await seeded('geo_places', [{ _id: 1, loc: [0, 0] }]);
      const near = await failure(places.find({ loc: { $near: [0, 0] } }).toArray());
      expect(near.code).toBe(291);
      if (!embedded) return;
      expectNotSupported(await failure(places.find({ loc: { $geoWithin: { $center: [[0, 0], 1] } } }).toArray()));
      expectNotSupported(await failure(places.find({ loc: { $geoIntersects: { $geometry: { type: 'Point', coordinates: [0, 0] } } } }).toArray()));
      await places.createIndex({ loc: '2d' });
      expectNotSupported(await failure(places.find({ loc: { $nearSphere: [0, 0] } }).toArray()));
      expectNotSupported(await failure(places.aggregate([{ $geoNear: { near: [0, 0], distanceField: 'd' } }]).toArray()));
    });

    it('refuses explain: the explain command is CommandNotFound (59), aggregate explain CommandNotSupported', async () => {
      if (!embedded) return;
      const items = await seeded('explained');
      const error = await failure(items.find({ a: 1 }).explain());
      expect(error.code).toBe(59);
      expect(error.message).toMatch(/MONGODB_URI/);
      expectNotSupported(await failure(database.db.command({ aggregate: 'explained', pipeline: [], explain: true })));
    });
  });

  describe('find options', () => {
    it('refuses min, max, returnKey and showRecordId rather than ignoring them', async () => {
      if (!embedded) return;
      const items = await seeded('find_options');
      await items.createIndex({ a: 1 });
      expectNotSupported(await failure(items.find({}, { min: { a: 2 }, hint: { a: 1 } }).toArray()));
      expectNotSupported(await failure(items.find({}, { max: { a: 2 }, hint: { a: 1 } }).toArray()));
      expectNotSupported(await failure(items.find({}, { returnKey: true }).toArray()));
      expectNotSupported(await failure(items.find({}, { showRecordId: true }).toArray()));
    });

    it('sorts by $natural in insertion order, forwards and backwards', async () => {
      const items = await seeded('natural_order', [{ _id: 3, a: 1 }, { _id: 1, a: 3 }, { _id: 2, a: 2 }]);
      await items.createIndex({ a: 1 });
      const ids = async (direction: 1 | -1) => (await items.find({ a: { $gte: 1 } }, { sort: { $natural: direction } }).toArray()).map((document) => document._id);
      expect(await ids(1)).toEqual([3, 1, 2]);
      expect(await ids(-1)).toEqual([2, 1, 3]);
      const hinted = await items.find({}, { hint: { $natural: -1 } }).toArray();
      expect(hinted.map((document) => document._id)).toEqual([2, 1, 3]);
    });
  });

  describe('query operators', () => {
    it('refuses an unknown operator with BadValue (2), even on a collection that does not exist', async () => {
      for (const name of ['unknown_operator_missing', 'unknown_operator_present']) {
        if (name.endsWith('present')) await seeded(name);
        const items = database.db.collection(name);
        const fieldLevel = await failure(items.find({ a: { $foo: 1 } }).toArray());
        expect(fieldLevel.code).toBe(2);
        expect(fieldLevel.message).toMatch(/unknown operator: \$foo/);
        const topLevel = await failure(items.find({ $foo: 1 }).toArray());
        expect(topLevel.code).toBe(2);
        expect(topLevel.message).toMatch(/unknown top level operator: \$foo/);
        const deletion = await failure(items.deleteMany({ a: { $foo: 1 } }));
        expect(deletion.code).toBe(2);
        const later = await failure(items.aggregate([{ $project: { a: 1 } }, { $match: { a: { $foo: 1 } } }]).toArray());
        expect(later.code).toBe(2);
        expect(later.message).toMatch(/unknown operator: \$foo/);
      }
    });
  });
});
