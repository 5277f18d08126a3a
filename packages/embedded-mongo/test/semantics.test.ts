import { Binary, Long, type Document } from 'mongodb';
import { openTestDatabase, seededCollection, serverError, type TestDatabase } from './test-database';

/**
 * Query, update and projection semantics where the engine used to differ from MongoDB silently.
 * Every expectation is MongoDB's own behaviour, so these hold against a real server too.
 */
describe('embedded engine: MongoDB semantics', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await openTestDatabase('semantics');
  });

  afterAll(async () => {
    await database.close();
  });

  const seeded = (name: string, documents: Document[]) => seededCollection(database, name, documents);

  const failure = serverError;

  const byId = { _id: 1 } as Document;

  describe('updates', () => {
    it('$pull with $or removes every element matching either clause', async () => {
      const items = await seeded('pull_or', [{ _id: 1, tags: [{ k: 'a' }, { k: 'b' }, { k: 'c' }], n: [1, 2, 3, 4] }]);
      const result = await items.updateOne(byId, { $pull: { tags: { $or: [{ k: 'a' }, { k: 'c' }] }, n: { $in: [2, 4] } } as Document });
      expect(result.modifiedCount).toBe(1);
      expect(await items.findOne(byId)).toEqual({ _id: 1, tags: [{ k: 'b' }], n: [1, 3] });
    });

    it('sets two fields of one positional element, and refuses a path inside another as a conflict (40)', async () => {
      const items = await seeded('positional_two_fields', [{ _id: 1, children: [{ id: 'x' }, { id: 'y' }] }]);
      await items.updateOne({ _id: 1, 'children.id': 'y' } as Document, { $set: { 'children.$.a': 1, 'children.$.b': 2 } });
      await items.updateOne(byId, { $set: { 'children.$[].c': 3, 'children.$[].d': 4 } });
      expect(await items.findOne(byId)).toEqual({
        _id: 1,
        children: [
          { id: 'x', c: 3, d: 4 },
          { id: 'y', a: 1, b: 2, c: 3, d: 4 },
        ],
      });
      const conflict = await failure(items.updateOne({ _id: 1, 'children.id': 'y' } as Document, { $set: { 'children.$': { id: 'z' }, 'children.$.b': 5 } }));
      expect(conflict.code).toBe(40);
      const filtered = await failure(items.updateOne(byId, { $set: { 'children.$[e]': { id: 'z' }, 'children.$[e].b': 5 } }, { arrayFilters: [{ 'e.id': 'x' }] }));
      expect(filtered.code).toBe(40);
    });

    it('accepts $set of _id at its current value and refuses a change (66)', async () => {
      const items = await seeded('set_same_id', [{ _id: 1, a: 1 }]);
      const same = await items.updateOne(byId, { $set: { _id: 1, a: 2 } as Document });
      expect(same.modifiedCount).toBe(1);
      expect(await items.findOne(byId)).toEqual({ _id: 1, a: 2 });
      const changed = await failure(items.updateOne(byId, { $set: { _id: 2 } as Document }));
      expect(changed.code).toBe(66);
    });

    it('refuses $set of a field through an array with PathNotViable (28)', async () => {
      const posts = await seeded('set_through_array', [{ _id: 1, comments: [{ body: 'a' }, { body: 'b' }], n: 5 }]);
      const error = await failure(posts.updateOne(byId, { $set: { 'comments.body': 'x' } }));
      expect(error.code).toBe(28);
      expect(error.message).toMatch(/Cannot create field 'body' in element \{comments: \[/);
      expect((await failure(posts.updateOne(byId, { $inc: { 'comments.count': 1 } }))).code).toBe(28);
      expect((await failure(posts.updateOne(byId, { $set: { 'n.x': 1 } }))).code).toBe(28);
      await posts.updateOne(byId, { $set: { 'comments.1.body': 'c' } });
      expect(await posts.findOne(byId)).toEqual({ _id: 1, comments: [{ body: 'a' }, { body: 'c' }], n: 5 });
    });
  });

  describe('queries', () => {
    it('$all matches a scalar field equal to its single value, and arrays holding every value', async () => {
      const items = await seeded('all_scalar', [
        { _id: 1, tag: 'a' },
        { _id: 2, tag: ['a', 'b'] },
        { _id: 3, tag: ['b'] },
        { _id: 4, tag: [['a', 'b']] },
      ]);
      const ids = async (filter: Document) => (await items.find(filter, { sort: { _id: 1 } }).toArray()).map((document) => document._id);
      expect(await ids({ tag: { $all: ['a'] } })).toEqual([1, 2]);
      expect(await ids({ tag: { $all: ['a', 'b'] } })).toEqual([2]);
      expect(await ids({ tag: { $all: [['a', 'b']] } })).toEqual([2, 4]);
      expect(await ids({ tag: { $all: [] } })).toEqual([]);
      expect(await ids({ $or: [{ tag: { $all: ['b'] } }, { _id: 1 }] })).toEqual([1, 2, 3]);
    });

    it('orders BinData by length, then subtype, then bytes, and never equates different subtypes', async () => {
      const items = await seeded('bindata_order', [
        { _id: 'long', bin: new Binary(Buffer.from([1, 2, 3]), 0) },
        { _id: 'uuid-ish', bin: new Binary(Buffer.from([9]), 5) },
        { _id: 'nine', bin: new Binary(Buffer.from([9]), 0) },
        { _id: 'one', bin: new Binary(Buffer.from([1]), 0) },
      ]);
      const sorted = await items.find({}, { sort: { bin: 1 } }).toArray();
      expect(sorted.map((document) => document._id)).toEqual(['one', 'nine', 'uuid-ish', 'long']);
      const exact = await items.find({ bin: new Binary(Buffer.from([9]), 5) }).toArray();
      expect(exact.map((document) => document._id)).toEqual(['uuid-ish']);
      const inList = await items.find({ bin: { $in: [new Binary(Buffer.from([9]), 0)] } }).toArray();
      expect(inList.map((document) => document._id)).toEqual(['nine']);
      const ranged = await items.find({ bin: { $gt: new Binary(Buffer.from([9]), 0) } }, { sort: { bin: 1 } }).toArray();
      expect(ranged.map((document) => document._id)).toEqual(['uuid-ish', 'long']);
    });

    it('compares int64 values above 2^53 exactly', async () => {
      const base = Long.fromString('9007199254740992');
      const items = await seeded('int64_large', [
        { _id: 1, big: base },
        { _id: 2, big: Long.fromString('9007199254740993') },
        { _id: 3, big: Long.fromString('9007199254740995') },
      ]);
      const ids = async (filter: Document, sort: Document = { _id: 1 }) => (await items.find(filter, { sort }).toArray()).map((document) => document._id);
      expect(await ids({ big: { $gt: base } })).toEqual([2, 3]);
      expect(await ids({ big: Long.fromString('9007199254740993') })).toEqual([2]);
      expect(await ids({ big: { $lte: Long.fromString('9007199254740993') } })).toEqual([1, 2]);
      expect(await ids({}, { big: -1 })).toEqual([3, 2, 1]);
      await items.createIndex({ big: 1 });
      expect(await ids({ big: { $gt: Long.fromString('9007199254740993') } })).toEqual([3]);
    });
  });

  describe('projections', () => {
    it('$slice keeps every other field (an exclusion-style projection) or joins an inclusion', async () => {
      const items = await seeded('slice_projection', [{ _id: 1, a: [1, 2, 3, 4], b: 'keep', c: { d: [5, 6, 7] } }]);
      expect(await items.findOne(byId, { projection: { a: { $slice: 2 } } })).toEqual({ _id: 1, a: [1, 2], b: 'keep', c: { d: [5, 6, 7] } });
      expect(await items.findOne(byId, { projection: { a: { $slice: -1 }, b: 0 } })).toEqual({ _id: 1, a: [4], c: { d: [5, 6, 7] } });
      expect(await items.findOne(byId, { projection: { a: { $slice: [1, 2] }, b: 1 } })).toEqual({ _id: 1, a: [2, 3], b: 'keep' });
      expect(await items.findOne(byId, { projection: { 'c.d': { $slice: 1 } } })).toEqual({ _id: 1, a: [1, 2, 3, 4], b: 'keep', c: { d: [5] } });
      expect(await items.findOne(byId)).toEqual({ _id: 1, a: [1, 2, 3, 4], b: 'keep', c: { d: [5, 6, 7] } });
    });

    it('$elemMatch returns _id and the first matching element only, after the other included fields', async () => {
      const items = await seeded('elem_match_projection', [
        { _id: 1, grades: [{ g: 70 }, { g: 90 }, { g: 95 }], name: 'x', other: true },
        { _id: 2, grades: [{ g: 10 }], name: 'y', other: true },
      ]);
      const found = await items.find({}, { projection: { grades: { $elemMatch: { g: { $gt: 80 } } } }, sort: { _id: 1 } }).toArray();
      expect(found).toEqual([{ _id: 1, grades: [{ g: 90 }] }, { _id: 2 }]);
      const withName = await items.findOne(byId, { projection: { grades: { $elemMatch: { g: 70 } }, name: 1 } });
      expect(withName).toEqual({ _id: 1, name: 'x', grades: [{ g: 70 }] });
      expect(Object.keys(withName ?? {})).toEqual(['_id', 'name', 'grades']);
    });
  });
});
