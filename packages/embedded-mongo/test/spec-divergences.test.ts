import { ObjectId, type Collection } from 'mongodb';
import { isEmbeddedEngine, openTestDatabase, serverError, type TestDatabase } from './test-database';
import { itWithTransactions } from './topology';

/**
 * Divergences found by running MongoDB's unified CRUD and transactions specification tests against
 * the engine (outside the project): each behaves here as MongoDB 7.0 does.
 */
describe('embedded engine: behaviours the specification tests expect', () => {
  let database: TestDatabase;
  let items: Collection;

  beforeAll(async () => {
    database = await openTestDatabase('spec_divergences');
    items = database.db.collection('items');
  });
  afterAll(() => database.close());
  beforeEach(async () => {
    await items.deleteMany({});
    await items.insertMany([{ _id: 1 as never, x: 11, t: { u: 1 } }, { _id: 2 as never, x: 22, t: { u: 2 } }]);
  });

  it('refuses a $-prefixed key inside _id on insert', async () => {
    await serverError(items.insertOne({ _id: { $a: 1 } as never }));
    expect(await items.countDocuments({})).toBe(2);
  });

  it('keeps _id when an update pipeline replaces the root with a document without one', async () => {
    await items.updateOne({ _id: 1 as never }, [{ $replaceRoot: { newRoot: '$t' } }, { $addFields: { foo: 1 } }]);
    expect(await items.findOne({ _id: 1 as never })).toEqual({ _id: 1, u: 1, foo: 1 });
  });

  it('refuses sort on update and replace statements as MongoDB 7.0 does (an unknown field)', async () => {
    if (!(await isEmbeddedEngine(database.db))) return; // a real 8.0 server accepts it
    for (const attempt of [() => items.updateOne({}, { $set: { y: 1 } }, { sort: { _id: -1 } } as never), () => items.replaceOne({}, { y: 1 }, { sort: { _id: -1 } } as never)]) {
      expect((await serverError(attempt())).code).toBe(40415);
    }
    expect(await items.countDocuments({ y: 1 })).toBe(0);
  });

  itWithTransactions('names OperationNotSupportedInTransaction when count runs in a transaction', async () => {
    const session = database.client.startSession();
    try {
      session.startTransaction();
      const error = await serverError(database.db.command({ count: 'items' }, { session }));
      expect(error.code).toBe(263);
      expect(error.codeName).toBe('OperationNotSupportedInTransaction');
      await session.abortTransaction();
    } finally {
      await session.endSession();
    }
  });
});

/**
 * MongoDB's CRUD specification tests `create-null-ids`: a null `_id` is a value like any other,
 * stored as given and found by `{_id: null}`. The driver (mongodb 7.8) replaces a null `_id` with
 * an ObjectId in insertOne, insertMany and bulkWrite's insertOne before sending, against any
 * server, unless `forceServerObjectId` leaves ids to the server: these tests send theirs that way.
 */
describe('embedded engine: a null _id (create-null-ids)', () => {
  let database: TestDatabase;
  /** Sends `_id` values as given (the driver adds none; the server gives one to a document without). */
  const asGiven = { forceServerObjectId: true };

  beforeAll(async () => {
    database = await openTestDatabase('null_ids');
  });
  afterAll(() => database.close());

  /** The documents of `collection` whose `_id` is null, found both ways the specification tests and the service ask. */
  async function nullIds(collection: Collection): Promise<{ byType: number; byEquality: unknown[] }> {
    return { byType: await collection.countDocuments({ _id: { $type: 'null' } }), byEquality: await collection.find({ _id: null as never }).toArray() };
  }

  it.each([
    ['insertOne', (c: Collection) => c.insertOne({ _id: null as never, n: 1 }, asGiven)],
    ['insertMany', (c: Collection) => c.insertMany([{ _id: null as never, n: 1 }], asGiven)],
    ['bulkWrite', (c: Collection) => c.bulkWrite([{ insertOne: { document: { _id: null as never, n: 1 } } }], asGiven)],
  ])('stores the null _id %s sends and finds it by {_id: null} and by $type', async (name, insert) => {
    const collection = database.db.collection(`inserted_${name}`);
    await insert(collection);
    expect(await nullIds(collection)).toEqual({ byType: 1, byEquality: [{ _id: null, n: 1 }] });
  });

  it.each([
    ['updateOne', (c: Collection) => c.updateOne({ _id: null as never }, { $unset: { a: '' } }, { upsert: true })],
    ['updateMany', (c: Collection) => c.updateMany({ _id: null as never }, { $unset: { a: '' } }, { upsert: true })],
    ['replaceOne', (c: Collection) => c.replaceOne({}, { _id: null }, { upsert: true })],
    ['bulkWrite updateOne', (c: Collection) => c.bulkWrite([{ updateOne: { filter: { _id: null as never }, update: { $unset: { a: '' } }, upsert: true } }])],
  ])('upserts a document with a null _id through %s and finds it', async (name, upsert) => {
    const collection = database.db.collection(`upserted_${name.replace(' ', '_')}`);
    const result = await upsert(collection);
    expect('upsertedCount' in result && result.upsertedCount).toBe(1);
    expect(await nullIds(collection)).toEqual({ byType: 1, byEquality: [{ _id: null }] });
  });

  it('finds the null _id among other ids by every equality form, updates and deletes it, and a second null _id is a duplicate key', async () => {
    const collection = database.db.collection('mixed');
    await collection.insertMany([{ _id: 1 as never, n: 1 }, { _id: null as never, n: 2 }, { _id: 'x' as never, n: 3 }], asGiven);
    const ids = async (filter: object, options = {}) => (await collection.find(filter, options).toArray()).map((document) => document.n);
    expect(await ids({ _id: null })).toEqual([2]);
    expect(await ids({ _id: { $eq: null } })).toEqual([2]);
    expect(await ids({ _id: { $in: [null, 'x'] } }, { sort: { n: 1 } })).toEqual([2, 3]);
    expect(await ids({ _id: null }, { hint: { _id: 1 } })).toEqual([2]);
    expect(await ids({ _id: { $ne: null } }, { sort: { n: 1 } })).toEqual([1, 3]);
    // MongoDB's order of values: null before numbers and strings.
    expect(await ids({}, { sort: { _id: 1 } })).toEqual([2, 1, 3]);

    const duplicate = await serverError(collection.insertOne({ _id: null as never, n: 4 }, asGiven));
    expect(duplicate.code).toBe(11000);
    expect(await collection.findOneAndUpdate({ _id: null as never }, { $inc: { n: 10 } }, { returnDocument: 'after' })).toEqual({ _id: null, n: 12 });
    expect((await collection.deleteOne({ _id: null as never })).deletedCount).toBe(1);
    expect(await ids({}, { sort: { n: 1 } })).toEqual([1, 3]);
  });

  it('gives each document sent without an _id an ObjectId when ids are left to the server', async () => {
    const collection = database.db.collection('server_ids');
    await collection.insertMany([{ n: 1 }, { n: 2 }], asGiven);
    const stored = await collection.find({}, { sort: { n: 1 } }).toArray();
    expect(stored.map((document) => [document._id instanceof ObjectId, document.n])).toEqual([
      [true, 1],
      [true, 2],
    ]);
    expect(stored[0]._id).not.toEqual(stored[1]._id);
  });

  it('the driver, not the server, turns a null _id of insertOne into an ObjectId without forceServerObjectId (why the three insert cases of create-null-ids fail with driver 7.8)', async () => {
    const collection = database.db.collection('driver_ids');
    const { insertedId } = await collection.insertOne({ _id: null as never, n: 1 });
    expect(insertedId).toBeInstanceOf(ObjectId);
    expect(await nullIds(collection)).toEqual({ byType: 0, byEquality: [] });
  });
});
