import type { Collection } from 'mongodb';
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
