import type { Collection, Document } from 'mongodb';
import { openTestDatabase, seededCollection, serverError, type TestDatabase } from './test-database';

/**
 * MongoDB 7.0 parses its CRUD commands with strict IDL structs: a field outside the command's
 * definition fails the whole command with IDLUnknownField (40415) before anything runs, instead of
 * being ignored. These are MongoDB's own answers, so they hold against a real 7.0 server too. The
 * other half matters as much: every field the driver and mongoose send stays accepted.
 */
describe('embedded engine: unknown command fields', () => {
  let database: TestDatabase;
  let items: Collection;

  beforeAll(async () => {
    database = await openTestDatabase('unknown_fields');
  });
  afterAll(() => database.close());
  beforeEach(async () => {
    await database.db.collection('items').drop().catch(() => undefined);
    items = await seededCollection(database, 'items', [{ _id: 1 as never, a: 1 }, { _id: 2 as never, a: 2 }]);
    await items.createIndex({ a: 1 }, { name: 'by_a' });
  });

  async function expectUnknownField(command: Document, field: string): Promise<void> {
    const error = await serverError(database.db.command(command));
    expect(error.code).toBe(40415);
    expect(error.codeName).toBe('IDLUnknownField');
    expect(error.message).toBe(`BSON field '${field}' is an unknown field.`);
  }

  it.each([
    ['find', { find: 'items', filter: {}, bogus: 1 }],
    ['aggregate', { aggregate: 'items', pipeline: [], cursor: {}, bogus: 1 }],
    ['count', { count: 'items', query: {}, bogus: 1 }],
    ['distinct', { distinct: 'items', key: 'a', bogus: 1 }],
    ['insert', { insert: 'items', documents: [{ _id: 3, a: 3 }], bogus: 1 }],
    ['update', { update: 'items', updates: [{ q: {}, u: { $set: { changed: true } }, multi: true }], bogus: 1 }],
    ['delete', { delete: 'items', deletes: [{ q: {}, limit: 0 }], bogus: 1 }],
    ['findAndModify', { findAndModify: 'items', query: {}, update: { $set: { changed: true } }, bogus: 1 }],
    ['createIndexes', { createIndexes: 'items', indexes: [{ key: { b: 1 }, name: 'by_b' }], bogus: 1 }],
    ['dropIndexes', { dropIndexes: 'items', index: 'by_a', bogus: 1 }],
    ['listCollections', { listCollections: 1, bogus: 1 }],
    ['listIndexes', { listIndexes: 'items', bogus: 1 }],
  ])('refuses an unknown field on %s and changes nothing', async (name, command) => {
    await expectUnknownField(command, `${name}.bogus`);
    expect(await items.find({}, { sort: { _id: 1 } }).toArray()).toEqual([{ _id: 1, a: 1 }, { _id: 2, a: 2 }]);
    expect((await items.indexes()).map((index) => index.name).sort()).toEqual(['_id_', 'by_a']);
  });

  it('names the command, not its lower-case alias, for findandmodify', async () => {
    await expectUnknownField({ findandmodify: 'items', query: {}, remove: true, bogus: 1 }, 'findAndModify.bogus');
    expect(await items.countDocuments()).toBe(2);
  });

  it('refuses an unknown field on getMore', async () => {
    const first = await database.db.command({ find: 'items', batchSize: 1 });
    await expectUnknownField({ getMore: first.cursor.id, collection: 'items', bogus: 1 }, 'getMore.bogus');
  });

  it('refuses an unknown field in any update or delete statement, failing the whole batch before it runs', async () => {
    await expectUnknownField(
      { update: 'items', updates: [{ q: { _id: 1 }, u: { $set: { changed: true } } }, { q: { _id: 2 }, u: { $set: { changed: true } }, bogus: 1 }] },
      'update.updates.bogus',
    );
    await expectUnknownField({ delete: 'items', deletes: [{ q: { _id: 1 }, limit: 1 }, { q: { _id: 2 }, limit: 1, bogus: 1 }] }, 'delete.deletes.bogus');
    expect(await items.find({}, { sort: { _id: 1 } }).toArray()).toEqual([{ _id: 1, a: 1 }, { _id: 2, a: 2 }]);
  });

  it('refuses a misspelt option rather than answering as if it were absent', async () => {
    await expectUnknownField({ find: 'items', filter: {}, limt: 1 }, 'find.limt');
    await expectUnknownField({ update: 'items', updates: [{ q: {}, u: { $set: { changed: true } }, mutli: true }] }, 'update.updates.mutli');
    expect(await items.countDocuments({ changed: true })).toBe(0);
  });

  it('accepts the generic arguments every command takes', async () => {
    const generic = { comment: 'why', maxTimeMS: 5000, readConcern: { level: 'local' }, apiVersion: '1', apiStrict: false, apiDeprecationErrors: false };
    const reply = await database.db.command({ find: 'items', filter: { a: 2 }, ...generic });
    expect(reply.cursor.firstBatch).toEqual([{ _id: 2, a: 2 }]);
    const written = await database.db.command({ insert: 'items', documents: [{ _id: 3, a: 3 }], writeConcern: { w: 1 }, comment: 'why', maxTimeMS: 5000 });
    expect(written.n).toBe(1);
  });

  it('accepts every field the driver sends for find, count, distinct and aggregate', async () => {
    const found = await database.db.command({
      find: 'items', filter: { a: { $gte: 1 } }, projection: { a: 1 }, sort: { a: -1 }, hint: 'by_a', collation: { locale: 'simple' },
      skip: 0, limit: 5, batchSize: 5, singleBatch: false, allowDiskUse: true, noCursorTimeout: false, allowPartialResults: false,
      let: { x: 1 }, comment: 'c', maxTimeMS: 5000, readConcern: { level: 'local' },
    });
    expect(found.cursor.firstBatch).toEqual([{ _id: 2, a: 2 }, { _id: 1, a: 1 }]);
    const counted = await database.db.command({ count: 'items', query: { a: 1 }, limit: 5, skip: 0, hint: 'by_a', collation: { locale: 'simple' }, comment: 'c', maxTimeMS: 5000, readConcern: { level: 'local' } });
    expect(counted.n).toBe(1);
    const distinct = await database.db.command({ distinct: 'items', key: 'a', query: {}, collation: { locale: 'simple' }, comment: 'c', maxTimeMS: 5000, readConcern: { level: 'local' } });
    expect(distinct.values.sort()).toEqual([1, 2]);
    const aggregated = await database.db.command({
      aggregate: 'items', pipeline: [{ $match: { a: 2 } }], cursor: { batchSize: 5 }, allowDiskUse: true, hint: 'by_a', collation: { locale: 'simple' },
      let: { x: 1 }, comment: 'c', maxTimeMS: 5000, bypassDocumentValidation: false, readConcern: { level: 'local' },
    });
    expect(aggregated.cursor.firstBatch).toEqual([{ _id: 2, a: 2 }]);
    const first = await database.db.command({ find: 'items', sort: { _id: 1 }, batchSize: 1 });
    const more = await database.db.command({ getMore: first.cursor.id, collection: 'items', batchSize: 5, maxTimeMS: 5000, comment: 'c' });
    expect(more.cursor.nextBatch).toEqual([{ _id: 2, a: 2 }]);
  });

  it('accepts every field the driver sends for writes and their statements', async () => {
    const inserted = await database.db.command({ insert: 'items', documents: [{ _id: 3, a: 3 }], ordered: true, bypassDocumentValidation: false, comment: 'c', writeConcern: { w: 'majority' } });
    expect(inserted.n).toBe(1);
    const updated = await database.db.command({
      update: 'items',
      updates: [{ q: { a: 3 }, u: { $set: { 'tags.$[t]': 1 } }, upsert: false, multi: false, arrayFilters: [{ t: 0 }], hint: 'by_a', collation: { locale: 'simple' } }],
      ordered: false, bypassDocumentValidation: false, let: { x: 1 }, comment: 'c', maxTimeMS: 5000, writeConcern: { w: 1 },
    });
    expect(updated.n).toBe(1);
    const deleted = await database.db.command({
      delete: 'items', deletes: [{ q: { a: 3 }, limit: 1, hint: 'by_a', collation: { locale: 'simple' } }], ordered: true, let: { x: 1 }, comment: 'c', writeConcern: { w: 1 },
    });
    expect(deleted.n).toBe(1);
    const modified = await database.db.command({
      findAndModify: 'items', query: { a: 1 }, sort: { a: 1 }, update: { $set: { changed: true } }, new: true, fields: { changed: 1 }, upsert: false,
      bypassDocumentValidation: false, hint: 'by_a', collation: { locale: 'simple' }, let: { x: 1 }, comment: 'c', maxTimeMS: 5000, writeConcern: { w: 1 },
    });
    expect(modified.value).toEqual({ _id: 1, changed: true });
  });

  it('accepts every field the driver sends for the index and catalogue commands', async () => {
    await database.db.command({ createIndexes: 'items', indexes: [{ key: { b: 1 }, name: 'by_b' }], commitQuorum: 'votingMembers', comment: 'c', writeConcern: { w: 1 } });
    const listed = await database.db.command({ listIndexes: 'items', cursor: { batchSize: 10 }, comment: 'c' });
    expect(listed.cursor.firstBatch.map((index: Document) => index.name).sort()).toEqual(['_id_', 'by_a', 'by_b']);
    await database.db.command({ dropIndexes: 'items', index: 'by_b', comment: 'c', writeConcern: { w: 1 } });
    const collections = await database.db.command({ listCollections: 1, filter: { name: 'items' }, nameOnly: true, authorizedCollections: true, cursor: {}, comment: 'c' });
    expect(collections.cursor.firstBatch.map((entry: Document) => entry.name)).toEqual(['items']);
  });

  it('accepts what the driver helpers and their options send, inside a session too', async () => {
    const session = database.client.startSession({ causalConsistency: true });
    try {
      const options = { session, comment: 'c', maxTimeMS: 5000 };
      await items.insertMany([{ _id: 3 as never, a: 3 }], { ...options, ordered: false, bypassDocumentValidation: false });
      await items.updateMany({ a: { $gte: 3 } }, { $set: { changed: true } }, { ...options, upsert: false, hint: 'by_a', let: { x: 1 } });
      await items.replaceOne({ _id: 3 as never }, { a: 3, replaced: true }, { ...options, upsert: true });
      await items.bulkWrite([{ updateOne: { filter: { _id: 1 as never }, update: { $inc: { a: 10 } } } }, { deleteOne: { filter: { _id: 2 as never } } }], { ...options, ordered: true });
      expect(await items.findOneAndUpdate({ _id: 1 as never }, { $inc: { a: 1 } }, { ...options, returnDocument: 'after', projection: { a: 1 } })).toEqual({ _id: 1, a: 12 });
      expect(await items.countDocuments({}, { ...options, limit: 10, skip: 0 })).toBe(2);
      expect(await items.estimatedDocumentCount({ comment: 'c', maxTimeMS: 5000 })).toBe(2);
      expect((await items.distinct('a', {}, options)).sort((x, y) => x - y)).toEqual([3, 12]);
      expect(await items.find({}, { ...options, sort: { _id: 1 }, batchSize: 1, projection: { a: 1 } }).toArray()).toEqual([{ _id: 1, a: 12 }, { _id: 3, a: 3 }]);
      expect(await items.aggregate([{ $sort: { _id: 1 } }, { $project: { a: 1 } }], { ...options, batchSize: 1, allowDiskUse: true }).toArray()).toEqual([
        { _id: 1, a: 12 },
        { _id: 3, a: 3 },
      ]);
      await items.deleteMany({ a: 3 }, options);
      expect(await items.countDocuments()).toBe(1);
    } finally {
      await session.endSession();
    }
  });
});
