import { MongoServerError, type ClientSession, type Collection } from 'mongodb';
import { describeWithTransactions } from './topology';
import { openTestDatabase, type TestDatabase } from './test-database';

/**
 * A write outside any transaction that meets a document (or a unique key) an open transaction has
 * written waits until that transaction commits or aborts, then applies to the data as it is then,
 * as MongoDB does; it gives up after its own maxTimeMS. Expectations are MongoDB's behaviour.
 */
describeWithTransactions('embedded engine: writes outside transactions wait for open transactions', () => {
  let database: TestDatabase;
  let accounts: Collection;
  const sessions: ClientSession[] = [];

  function session(): ClientSession {
    const opened = database.client.startSession();
    sessions.push(opened);
    return opened;
  }

  beforeAll(async () => {
    database = await openTestDatabase('txn_waits');
    accounts = database.db.collection('accounts');
    await database.db.createCollection('accounts');
    await accounts.createIndex({ owner: 1 }, { unique: true });
  });

  beforeEach(async () => {
    await accounts.deleteMany({});
    await accounts.insertMany([
      { owner: 'alice', balance: 100 },
      { owner: 'bob', balance: 0 },
    ]);
  });

  afterEach(async () => {
    for (const opened of sessions.splice(0)) {
      if (opened.inTransaction()) await opened.abortTransaction().catch(() => undefined);
      await opened.endSession();
    }
  });

  afterAll(async () => {
    await database.close();
  });

  async function balances(): Promise<Record<string, number>> {
    const all = await accounts.find({}).toArray();
    return Object.fromEntries(all.map((account) => [account.owner, account.balance]));
  }

  /** Follows a pending operation, so a test can tell whether it has finished yet. */
  function track<T>(operation: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
    let settled = false;
    const promise = operation.finally(() => (settled = true));
    promise.catch(() => undefined);
    return { promise, settled: () => settled };
  }

  it('waits for the transaction that wrote the document and applies after its commit, which it does not abort', async () => {
    const writer = session();
    writer.startTransaction();
    await accounts.updateOne({ owner: 'alice' }, { $inc: { balance: -30 } }, { session: writer });

    const outside = track(accounts.updateOne({ owner: 'alice' }, { $inc: { balance: 5 } }));
    // The transaction goes on writing while the outside write waits.
    await accounts.updateOne({ owner: 'bob' }, { $inc: { balance: 30 } }, { session: writer });
    expect(await balances()).toEqual({ alice: 100, bob: 0 });
    expect(outside.settled()).toBe(false);

    await writer.commitTransaction();
    expect((await outside.promise).modifiedCount).toBe(1);
    expect(await balances()).toEqual({ alice: 75, bob: 30 });
  });

  it('applies to the committed data when the transaction aborts instead', async () => {
    const writer = session();
    writer.startTransaction();
    await accounts.updateOne({ owner: 'alice' }, { $set: { balance: 0 } }, { session: writer });
    const outside = track(accounts.findOneAndUpdate({ owner: 'alice' }, { $inc: { balance: 5 } }, { returnDocument: 'after' }));
    await accounts.findOne({ owner: 'bob' });
    expect(outside.settled()).toBe(false);

    await writer.abortTransaction();
    expect(await outside.promise).toMatchObject({ owner: 'alice', balance: 105 });
  });

  it('changes nothing before it waits, so a multi-document write is applied exactly once to every document', async () => {
    const writer = session();
    writer.startTransaction();
    await accounts.updateOne({ owner: 'bob' }, { $inc: { balance: 10 } }, { session: writer });
    const outside = track(accounts.updateMany({}, { $inc: { balance: 1 } }));
    await accounts.findOne({ owner: 'alice' });
    // Nothing of the outside updateMany is visible while it waits (alice, free, was not changed either).
    expect(await balances()).toEqual({ alice: 100, bob: 0 });

    await writer.commitTransaction();
    expect((await outside.promise).modifiedCount).toBe(2);
    expect(await balances()).toEqual({ alice: 101, bob: 11 });

    const deleter = session();
    deleter.startTransaction();
    await accounts.updateOne({ owner: 'alice' }, { $set: { balance: 0 } }, { session: deleter });
    const deleteAll = track(accounts.deleteMany({}));
    await accounts.findOne({});
    expect(deleteAll.settled()).toBe(false);
    expect(await balances()).toEqual({ alice: 101, bob: 11 });
    await deleter.commitTransaction();
    expect((await deleteAll.promise).deletedCount).toBe(2);
    expect(await balances()).toEqual({});
  });

  it('waits on a unique key the transaction wrote: a duplicate once it commits, inserted once it aborts', async () => {
    const first = session();
    first.startTransaction();
    await accounts.insertOne({ owner: 'zoe', balance: 1 }, { session: first });
    const duplicate = track(accounts.insertOne({ owner: 'zoe', balance: 2 }));
    await accounts.findOne({});
    expect(duplicate.settled()).toBe(false);
    await first.commitTransaction();
    await expect(duplicate.promise).rejects.toMatchObject({ code: 11000 });

    const second = session();
    second.startTransaction();
    await accounts.insertOne({ owner: 'yan', balance: 1 }, { session: second });
    const insert = track(accounts.insertOne({ owner: 'yan', balance: 2 }));
    await accounts.findOne({});
    expect(insert.settled()).toBe(false);
    await second.abortTransaction();
    await insert.promise;
    expect(await accounts.find({ owner: { $in: ['zoe', 'yan'] } }, { projection: { _id: 0 } }).sort({ owner: 1 }).toArray()).toEqual([
      { owner: 'yan', balance: 2 },
      { owner: 'zoe', balance: 1 },
    ]);
  });

  it("gives up after the write's maxTimeMS with MaxTimeMSExpired (50), having changed nothing", async () => {
    const writer = session();
    writer.startTransaction();
    await accounts.updateOne({ owner: 'alice' }, { $set: { balance: 7 } }, { session: writer });
    const error = await accounts.updateOne({ owner: 'alice' }, { $set: { balance: 1 } }, { maxTimeMS: 150 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MongoServerError);
    // An interruption fails the whole command (not one statement's write error), as on MongoDB.
    expect((error as MongoServerError).errorResponse).toMatchObject({ ok: 0, code: 50, codeName: 'MaxTimeMSExpired' });
    await writer.commitTransaction();
    expect(await balances()).toEqual({ alice: 7, bob: 0 });
  });
});
