import { Binary, Double, Int32, Long, MongoBulkWriteError, MongoClient, ObjectId, type Collection, type Document } from 'mongodb';
import { openTestDatabase, type TestDatabase } from './test-database';

describe('embedded engine: insert, find, update and delete', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await openTestDatabase('crud');
  });

  afterAll(async () => {
    await database.close();
  });

  function freshCollection(name: string): Collection {
    return database.db.collection(name);
  }

  describe('insert', () => {
    it('stores documents sent inline and as an OP_MSG document sequence, generating _id when missing', async () => {
      const people = freshCollection('insert_people');
      const single = await people.insertOne({ name: 'Ada' });
      const many = await people.insertMany([{ name: 'Grace' }, { name: 'Linus' }, { _id: 'custom' as unknown as ObjectId, name: 'Ken' }]);
      expect(single.insertedId).toBeInstanceOf(ObjectId);
      expect(many.insertedCount).toBe(3);
      const raw = await database.db.command({ insert: 'insert_people', documents: [{ name: 'NoId' }] });
      expect(raw.n).toBe(1);
      const stored = await people.findOne({ name: 'NoId' });
      expect(stored?._id).toBeInstanceOf(ObjectId);
      expect(Object.keys(stored ?? {})[0]).toBe('_id');
      expect(await people.countDocuments()).toBe(5);
    });

    it('rejects a duplicate _id with E11000 on the _id_ index and keeps the earlier inserts of an ordered batch', async () => {
      const items = freshCollection('insert_dupes');
      const error = await items.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 1 }, { _id: 3 }] as unknown as Document[]).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MongoBulkWriteError);
      const bulkError = error as MongoBulkWriteError;
      expect(bulkError.code).toBe(11000);
      expect(bulkError.writeErrors).toHaveLength(1);
      const [writeError] = bulkError.writeErrors as unknown as Array<{ index: number; errmsg: string }>;
      expect(writeError.index).toBe(2);
      expect(writeError.errmsg).toMatch(/^E11000 duplicate key error collection: \S+\.insert_dupes index: _id_ dup key: \{ _id: 1 \}$/);
      expect(await items.countDocuments()).toBe(2);
    });

    it('continues past duplicates in an unordered batch', async () => {
      const items = freshCollection('insert_unordered');
      const error = (await items
        .insertMany([{ _id: 1 }, { _id: 1 }, { _id: 2 }] as unknown as Document[], { ordered: false })
        .catch((caught: unknown) => caught)) as MongoBulkWriteError;
      expect(error.writeErrors).toHaveLength(1);
      expect(await items.countDocuments()).toBe(2);
    });

    it('round-trips ObjectId, Date, Long, Int32, Double, strings, arrays, nested documents and binary data', async () => {
      const types = freshCollection('types');
      const id = new ObjectId();
      const when = new Date('2026-11-21T10:00:00.000Z');
      const big = Long.fromString('9007199254740993');
      await types.insertOne({
        _id: id,
        when,
        big,
        small: new Int32(42),
        ratio: new Double(1.5),
        text: 'héllo',
        list: [1, 'two', { three: 3 }],
        nested: { deep: { deeper: [new ObjectId(id.toHexString())] } },
        bytes: new Binary(Buffer.from([1, 2, 3])),
        flag: true,
        nothing: null,
      });
      const stored = await types.findOne({ _id: id }, { promoteLongs: false });
      expect(stored?._id).toEqual(id);
      expect(stored?.when).toEqual(when);
      expect(Long.isLong(stored?.big)).toBe(true);
      expect((stored?.big as Long).toString()).toBe('9007199254740993');
      expect(stored?.small).toBe(42);
      expect(stored?.ratio).toBe(1.5);
      expect(stored?.text).toBe('héllo');
      expect(stored?.list).toEqual([1, 'two', { three: 3 }]);
      expect(stored?.nested.deep.deeper[0]).toEqual(id);
      expect(Buffer.from((stored?.bytes as Binary).buffer)).toEqual(Buffer.from([1, 2, 3]));
      expect(stored?.flag).toBe(true);
      expect(stored?.nothing).toBeNull();
      expect(await types.countDocuments({ when: { $gte: new Date('2026-01-01') } })).toBe(1);
    });

    it('compares numbers across int, long and double when querying', async () => {
      const numbers = freshCollection('numbers');
      await numbers.insertMany([{ v: new Int32(5) }, { v: Long.fromNumber(5) }, { v: new Double(5.0) }, { v: 6 }]);
      expect(await numbers.countDocuments({ v: 5 })).toBe(3);
      expect(await numbers.countDocuments({ v: { $gt: 5 } })).toBe(1);
    });
  });

  describe('find', () => {
    let items: Collection;

    beforeAll(async () => {
      items = freshCollection('find_items');
      await items.insertMany(
        Array.from({ length: 250 }, (_, i) => ({ _id: i, n: i, parity: i % 2 === 0 ? 'even' : 'odd', group: i % 5, nested: { x: i, y: -i }, tags: [`t${i % 3}`, 'all'] })) as unknown as Document[],
      );
    });

    it('filters, sorts, skips and limits', async () => {
      const page = await items.find({ parity: 'odd', n: { $lt: 50 } }).sort({ n: -1 }).skip(2).limit(3).toArray();
      expect(page.map((doc) => doc.n)).toEqual([45, 43, 41]);
    });

    it('sorts on several keys and on nested fields', async () => {
      const sorted = await items.find({ n: { $lt: 10 } }).sort({ group: 1, 'nested.y': 1 }).toArray();
      expect(sorted.map((doc) => doc.n)).toEqual([5, 0, 6, 1, 7, 2, 8, 3, 9, 4]);
    });

    it('sorts values of different BSON types in MongoDB order, in find and in aggregate', async () => {
      const mixed = freshCollection('mixed_types');
      const id = new ObjectId();
      await mixed.insertMany([{ k: 'date', v: new Date(0) }, { k: 'string', v: 'b' }, { k: 'bool', v: true }, { k: 'number', v: 1 }, { k: 'null', v: null }, { k: 'object', v: { a: 1 } }, { k: 'objectId', v: id }]);
      const expected = ['null', 'number', 'string', 'object', 'objectId', 'bool', 'date'];
      expect((await mixed.find({}).sort({ v: 1 }).toArray()).map((doc) => doc.k)).toEqual(expected);
      expect((await mixed.find({}).sort({ v: -1 }).limit(2).toArray()).map((doc) => doc.k)).toEqual(['date', 'bool']);
      expect((await mixed.aggregate([{ $sort: { v: 1 } }, { $limit: 3 }]).toArray()).map((doc) => doc.k)).toEqual(expected.slice(0, 3));
    });

    it('projects inclusions (keeping _id unless excluded), nested paths and exclusions', async () => {
      const included = await items.findOne({ n: 7 }, { projection: { parity: 1, 'nested.x': 1 } });
      expect(included).toEqual({ _id: 7, parity: 'odd', nested: { x: 7 } });
      const withoutId = await items.findOne({ n: 7 }, { projection: { _id: 0, n: 1 } });
      expect(withoutId).toEqual({ n: 7 });
      const excluded = await items.findOne({ n: 7 }, { projection: { nested: 0, tags: 0 } });
      expect(excluded).toEqual({ _id: 7, n: 7, parity: 'odd', group: 2 });
      const sliced = await items.findOne({ n: 7 }, { projection: { tags: { $slice: 1 } } });
      expect(sliced?.tags).toEqual(['t1']);
    });

    it('rejects a projection mixing inclusion and exclusion', async () => {
      await expect(items.findOne({}, { projection: { n: 1, parity: 0 } })).rejects.toThrow(/exclusion/);
    });

    it('returns results past the first batch of 101 through getMore', async () => {
      const all = await items.find({}).toArray();
      expect(all).toHaveLength(250);
      expect(new Set(all.map((doc) => doc._id)).size).toBe(250);
    });

    it('honours batchSize and answers raw find/getMore with Long cursor ids', async () => {
      const first = await database.db.command({ find: 'find_items', filter: {}, batchSize: 100 });
      expect(first.cursor.firstBatch).toHaveLength(100);
      expect(Long.isLong(first.cursor.id) || typeof first.cursor.id === 'bigint' || typeof first.cursor.id === 'number').toBe(true);
      expect(Number(first.cursor.id)).not.toBe(0);
      const more = await database.db.command({ getMore: Long.fromValue(first.cursor.id), collection: 'find_items', batchSize: 120 });
      expect(more.cursor.nextBatch).toHaveLength(120);
      const rest = await database.db.command({ getMore: Long.fromValue(first.cursor.id), collection: 'find_items' });
      expect(rest.cursor.nextBatch).toHaveLength(30);
      expect(Number(rest.cursor.id)).toBe(0);
    });

    it('closes a single-batch find without a cursor', async () => {
      const reply = await database.db.command({ find: 'find_items', filter: {}, limit: 5, singleBatch: true });
      expect(reply.cursor.firstBatch).toHaveLength(5);
      expect(Number(reply.cursor.id)).toBe(0);
    });

    it('kills a cursor so that a later getMore fails with CursorNotFound', async () => {
      const first = await database.db.command({ find: 'find_items', filter: {}, batchSize: 10 });
      const id = Long.fromValue(first.cursor.id);
      const killed = await database.db.command({ killCursors: 'find_items', cursors: [id] });
      expect(killed.cursorsKilled.map(Number)).toEqual([Number(id)]);
      await expect(database.db.command({ getMore: id, collection: 'find_items' })).rejects.toMatchObject({ code: 43 });
    });

    it('kills the server cursor when a driver cursor is closed early', async () => {
      const monitored = await MongoClient.connect(database.uri, { monitorCommands: true });
      const killReplies: Document[] = [];
      monitored.on('commandSucceeded', (event) => {
        if (event.commandName === 'killCursors') killReplies.push(event.reply as Document);
      });
      try {
        const cursor = monitored.db().collection('find_items').find({}).batchSize(10);
        await cursor.next();
        const id = cursor.id;
        await cursor.close();
        expect(killReplies).toHaveLength(1);
        expect(killReplies[0].cursorsKilled.map(Number)).toEqual([Number(id)]);
      } finally {
        await monitored.close();
      }
    });

    it('supports query operators: $in, $nin, $or, $and, $exists, $regex, $elemMatch, $all, $size, $not and $expr', async () => {
      const count = (filter: Document) => items.countDocuments(filter);
      expect(await count({ n: { $in: [1, 2, 300] } })).toBe(2);
      expect(await count({ n: { $lt: 10, $nin: [1, 2] } })).toBe(8);
      expect(await count({ $or: [{ n: 1 }, { n: 2 }] })).toBe(2);
      expect(await count({ $and: [{ n: { $gte: 10 } }, { n: { $lt: 20 } }] })).toBe(10);
      expect(await count({ missing: { $exists: false } })).toBe(250);
      expect(await count({ parity: { $regex: '^ev' } })).toBe(125);
      expect(await count({ tags: { $all: ['t0', 'all'] } })).toBe(84);
      expect(await count({ tags: { $size: 2 } })).toBe(250);
      expect(await count({ tags: 't1' })).toBe(83);
      expect(await count({ n: { $not: { $gte: 5 } } })).toBe(5);
      expect(await count({ $expr: { $eq: ['$n', '$nested.x'] } })).toBe(250);
    });
  });

  describe('update', () => {
    it('applies $set, $unset, $inc, $mul, $min, $max, $rename and $currentDate', async () => {
      const docs = freshCollection('update_ops');
      await docs.insertOne({ _id: 1, a: 1, b: 2, c: 10, d: 10, old: 'x', counter: 5 } as unknown as Document);
      const result = await docs.updateOne(
        { _id: 1 } as Document,
        { $set: { a: 'set', 'deep.field': true }, $unset: { b: '' }, $inc: { counter: 2 }, $mul: { c: 3 }, $min: { d: 4 }, $max: { e: 7 }, $rename: { old: 'renamed' }, $currentDate: { touched: true } },
      );
      expect(result.matchedCount).toBe(1);
      expect(result.modifiedCount).toBe(1);
      const doc = await docs.findOne({ _id: 1 } as Document);
      expect(doc).toMatchObject({ a: 'set', deep: { field: true }, counter: 7, c: 30, d: 4, e: 7, renamed: 'x' });
      expect(doc).not.toHaveProperty('b');
      expect(doc).not.toHaveProperty('old');
      expect(doc?.touched).toBeInstanceOf(Date);
    });

    it('applies array operators $push with $each, $addToSet, $pull, $pullAll and $pop', async () => {
      const docs = freshCollection('update_arrays');
      await docs.insertOne({ _id: 1, list: [1, 2], set: ['a'], scores: [1, 5, 9, 5], drop: [1, 2, 3], pop: [1, 2, 3] } as unknown as Document);
      await docs.updateOne({ _id: 1 } as Document, {
        $push: { list: { $each: [3, 4] } },
        $addToSet: { set: { $each: ['a', 'b'] } },
        $pull: { scores: { $gte: 5 } },
        $pullAll: { drop: [1, 3] },
        $pop: { pop: -1 },
      } as Document);
      expect(await docs.findOne({ _id: 1 } as Document)).toEqual({ _id: 1, list: [1, 2, 3, 4], set: ['a', 'b'], scores: [1], drop: [2], pop: [2, 3] });
    });

    it('counts unchanged documents as matched but not modified', async () => {
      const docs = freshCollection('update_noop');
      await docs.insertOne({ _id: 1, a: 1 } as unknown as Document);
      const result = await docs.updateOne({ _id: 1 } as Document, { $set: { a: 1 } });
      expect(result).toMatchObject({ matchedCount: 1, modifiedCount: 0 });
    });

    it('updates every match with multi and only the first without', async () => {
      const docs = freshCollection('update_multi');
      await docs.insertMany([{ k: 1 }, { k: 1 }, { k: 1 }, { k: 2 }]);
      expect((await docs.updateOne({ k: 1 }, { $set: { seen: true } })).modifiedCount).toBe(1);
      expect((await docs.updateMany({ k: 1 }, { $set: { all: true } })).modifiedCount).toBe(3);
      expect(await docs.countDocuments({ all: true })).toBe(3);
    });

    it('replaces a whole document but keeps its _id', async () => {
      const docs = freshCollection('update_replace');
      await docs.insertOne({ _id: 1, a: 1, b: 2 } as unknown as Document);
      await docs.replaceOne({ _id: 1 } as Document, { c: 3 });
      expect(await docs.findOne({ _id: 1 } as Document)).toEqual({ _id: 1, c: 3 });
    });

    it('refuses to change _id, with ImmutableField', async () => {
      const docs = freshCollection('update_immutable');
      await docs.insertOne({ _id: 1, a: 1 } as unknown as Document);
      await expect(docs.updateOne({ _id: 1 } as Document, { $set: { _id: 2 } } as Document)).rejects.toMatchObject({ code: 66 });
      await expect(docs.replaceOne({ _id: 1 } as Document, { _id: 2, a: 1 } as Document)).rejects.toMatchObject({ code: 66 });
    });

    it('reports MongoDB errors for bad operators and types', async () => {
      const docs = freshCollection('update_errors');
      await docs.insertOne({ _id: 1, text: 'x', num: 1 } as unknown as Document);
      await expect(docs.updateOne({ _id: 1 } as Document, { $inc: { text: 1 } } as Document)).rejects.toMatchObject({ code: 14 });
      await expect(docs.updateOne({ _id: 1 } as Document, { $push: { num: 1 } } as Document)).rejects.toMatchObject({ code: 2 });
      await expect(docs.updateOne({ _id: 1 } as Document, { $set: { a: 1 }, $inc: { a: 1 } } as Document)).rejects.toMatchObject({ code: 40 });
      await expect(database.db.command({ update: 'update_errors', updates: [{ q: { _id: 1 }, u: { $bogus: { a: 1 } } }] })).resolves.toMatchObject({
        writeErrors: [expect.objectContaining({ code: 9 })],
      });
      await expect(docs.updateOne({ _id: 1 } as Document, { $set: { 'num.inner': 1 } } as Document)).rejects.toMatchObject({ code: 28 });
    });

    it('upserts from the filter equalities plus $set and $setOnInsert, and ignores $setOnInsert when the document exists', async () => {
      const docs = freshCollection('upserts');
      const inserted = await docs.updateOne(
        { email: 'a@example.com', 'profile.country': 'NO', age: { $gt: 5 }, $and: [{ tier: { $eq: 'gold' } }] },
        { $set: { name: 'A' }, $setOnInsert: { createdBy: 'upsert' }, $inc: { visits: 1 } },
        { upsert: true },
      );
      expect(inserted.upsertedCount).toBe(1);
      expect(inserted.upsertedId).toBeInstanceOf(ObjectId);
      const created = await docs.findOne({ _id: inserted.upsertedId! });
      expect(created).toEqual({
        _id: inserted.upsertedId,
        email: 'a@example.com',
        profile: { country: 'NO' },
        tier: 'gold',
        name: 'A',
        createdBy: 'upsert',
        visits: 1,
      });
      const updated = await docs.updateOne({ email: 'a@example.com' }, { $set: { name: 'B' }, $setOnInsert: { createdBy: 'again' } }, { upsert: true });
      expect(updated).toMatchObject({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
      expect(await docs.findOne({ email: 'a@example.com' })).toMatchObject({ name: 'B', createdBy: 'upsert' });
    });

    it('upserts a replacement document with the _id from the filter', async () => {
      const docs = freshCollection('upsert_replace');
      const result = await docs.replaceOne({ _id: 'fixed' } as Document, { value: 1 }, { upsert: true });
      expect(result.upsertedId).toBe('fixed');
      expect(await docs.findOne({ _id: 'fixed' } as Document)).toEqual({ _id: 'fixed', value: 1 });
    });

    it('updates the array element matched by the query through the positional $ operator, also under $and', async () => {
      const docs = freshCollection('positional');
      await docs.insertOne({ _id: 1, items: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 1 }, { sku: 'c', qty: 1 }] } as unknown as Document);
      await docs.updateOne({ _id: 1, 'items.sku': 'b' } as Document, { $inc: { 'items.$.qty': 10 } } as Document);
      await docs.updateOne({ $and: [{ _id: 1 }, { 'items.sku': 'c' }] } as Document, { $set: { 'items.$.qty': 7 } } as Document);
      const doc = await docs.findOne({ _id: 1 } as Document);
      expect(doc?.items.map((item: Document) => item.qty)).toEqual([1, 11, 7]);
    });

    it('updates array elements selected by arrayFilters and all elements with $[]', async () => {
      const docs = freshCollection('array_filters');
      await docs.insertOne({ _id: 1, grades: [{ score: 50, passed: false }, { score: 80, passed: false }, { score: 95, passed: false }] } as unknown as Document);
      await docs.updateOne({ _id: 1 } as Document, { $set: { 'grades.$[high].passed': true } } as Document, { arrayFilters: [{ 'high.score': { $gte: 80 } }] });
      await docs.updateOne({ _id: 1 } as Document, { $inc: { 'grades.$[].score': 1 } } as Document);
      const doc = await docs.findOne({ _id: 1 } as Document);
      expect(doc?.grades).toEqual([
        { score: 51, passed: false },
        { score: 81, passed: true },
        { score: 96, passed: true },
      ]);
    });

    it('applies pipeline-style updates', async () => {
      const docs = freshCollection('pipeline_update');
      await docs.insertOne({ _id: 1, first: 'Ada', last: 'Lovelace' } as unknown as Document);
      await docs.updateOne({ _id: 1 } as Document, [{ $set: { full: { $concat: ['$first', ' ', '$last'] } } }, { $unset: 'first' }]);
      expect(await docs.findOne({ _id: 1 } as Document)).toEqual({ _id: 1, last: 'Lovelace', full: 'Ada Lovelace' });
    });
  });

  describe('bulkWrite', () => {
    it('runs mixed inserts, updates, upserts, replacements and deletes and reports each count', async () => {
      const docs = freshCollection('bulk');
      await docs.insertMany([{ k: 1 }, { k: 2 }, { k: 3 }]);
      const result = await docs.bulkWrite([
        { insertOne: { document: { k: 4 } } },
        { updateOne: { filter: { k: 1 }, update: { $set: { seen: true } } } },
        { updateMany: { filter: { k: { $gte: 3 } }, update: { $inc: { k: 10 } } } },
        { updateOne: { filter: { k: 99 }, update: { $set: { created: true } }, upsert: true } },
        { replaceOne: { filter: { k: 2 }, replacement: { k: 20 } } },
        { deleteOne: { filter: { k: 1 } } },
      ]);
      expect(result).toMatchObject({ insertedCount: 1, matchedCount: 4, modifiedCount: 4, upsertedCount: 1, deletedCount: 1 });
      expect((await docs.find({}, { projection: { _id: 0, k: 1 } }).sort({ k: 1 }).toArray()).map((doc) => doc.k)).toEqual([13, 14, 20, 99]);
    });
  });

  describe('delete', () => {
    it('deletes one match with limit 1 and all matches with limit 0', async () => {
      const docs = freshCollection('deletes');
      await docs.insertMany([{ k: 1 }, { k: 1 }, { k: 1 }, { k: 2 }]);
      expect((await docs.deleteOne({ k: 1 })).deletedCount).toBe(1);
      expect((await docs.deleteMany({ k: 1 })).deletedCount).toBe(2);
      expect((await docs.deleteMany({ k: 99 })).deletedCount).toBe(0);
      expect(await docs.countDocuments()).toBe(1);
    });

    it('deletes nothing from a collection that does not exist', async () => {
      expect((await freshCollection('never_created').deleteMany({})).deletedCount).toBe(0);
    });
  });
});
