import { MongoClient, MongoServerError, type ClientSession, type Collection, type Document } from 'mongodb';
import mongoose from 'mongoose';
import { openTestDatabase, type TestDatabase } from './test-database';
import { describeWithTransactions } from './topology';

describeWithTransactions('embedded engine: transactions', () => {
  let database: TestDatabase;
  let accounts: Collection;

  beforeAll(async () => {
    database = await openTestDatabase('txn');
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

  afterAll(async () => {
    await database.close();
  });

  async function balances(): Promise<Record<string, number>> {
    const all = await accounts.find({}).toArray();
    return Object.fromEntries(all.map((account) => [account.owner, account.balance]));
  }

  describe('through driver sessions', () => {
    it('commits all writes of withTransaction together', async () => {
      const session = database.client.startSession();
      try {
        await session.withTransaction(async () => {
          await accounts.updateOne({ owner: 'alice' }, { $inc: { balance: -30 } }, { session });
          await accounts.updateOne({ owner: 'bob' }, { $inc: { balance: 30 } }, { session });
          await accounts.insertOne({ owner: 'carol', balance: 1 }, { session });
        });
      } finally {
        await session.endSession();
      }
      expect(await balances()).toEqual({ alice: 70, bob: 30, carol: 1 });
    });

    it('undoes inserts, updates and deletes when the transaction aborts', async () => {
      const session = database.client.startSession();
      try {
        session.startTransaction();
        await accounts.updateOne({ owner: 'alice' }, { $inc: { balance: -50 } }, { session });
        await accounts.insertOne({ owner: 'dave', balance: 5 }, { session });
        await accounts.deleteOne({ owner: 'bob' }, { session });
        await database.db.collection('created_in_txn').insertOne({ a: 1 }, { session });
        const inside = await accounts.find({}, { session }).toArray();
        expect(inside.map((account) => account.owner).sort()).toEqual(['alice', 'dave']);
        await session.abortTransaction();
      } finally {
        await session.endSession();
      }
      expect(await balances()).toEqual({ alice: 100, bob: 0 });
      expect(await database.db.collection('created_in_txn').countDocuments()).toBe(0);
    });

    it('rolls back when the callback throws, and the error reaches the caller', async () => {
      const session = database.client.startSession();
      try {
        await expect(
          session.withTransaction(async () => {
            await accounts.updateOne({ owner: 'alice' }, { $set: { balance: 0 } }, { session });
            throw new Error('business rule failed');
          }),
        ).rejects.toThrow('business rule failed');
      } finally {
        await session.endSession();
      }
      expect(await balances()).toEqual({ alice: 100, bob: 0 });
    });

    it('aborts the whole transaction on a duplicate key inside it', async () => {
      const session = database.client.startSession();
      try {
        await expect(
          session.withTransaction(async () => {
            await accounts.updateOne({ owner: 'alice' }, { $inc: { balance: 1 } }, { session });
            await accounts.insertOne({ owner: 'bob', balance: 1 }, { session });
          }),
        ).rejects.toMatchObject({ code: 11000 });
      } finally {
        await session.endSession();
      }
      expect(await balances()).toEqual({ alice: 100, bob: 0 });
    });

    it('runs concurrent read-modify-write transactions to completion, retrying write conflicts, without losing an update', async () => {
      const transfer = async (amount: number) => {
        const session = database.client.startSession();
        try {
          await session.withTransaction(async () => {
            const alice = await accounts.findOne({ owner: 'alice' }, { session });
            await accounts.updateOne({ owner: 'alice' }, { $set: { balance: (alice?.balance ?? 0) - amount } }, { session });
            await new Promise((resolve) => setTimeout(resolve, 20));
            await accounts.updateOne({ owner: 'bob' }, { $inc: { balance: amount } }, { session });
          });
        } finally {
          await session.endSession();
        }
      };
      await Promise.all([transfer(10), transfer(15), transfer(20)]);
      const result = await balances();
      expect(result.alice + result.bob).toBe(100);
      expect(result.bob).toBe(45);
    });

    it('fails a second transaction writing the same document with a retryable WriteConflict', async () => {
      const first = database.client.startSession();
      const second = database.client.startSession();
      try {
        first.startTransaction();
        await accounts.updateOne({ owner: 'alice' }, { $inc: { balance: -1 } }, { session: first });
        second.startTransaction();
        const error = (await accounts
          .updateOne({ owner: 'alice' }, { $inc: { balance: -2 } }, { session: second })
          .catch((caught: unknown) => caught)) as MongoServerError;
        expect(error).toBeInstanceOf(MongoServerError);
        expect(error.code).toBe(112);
        expect(error.hasErrorLabel('TransientTransactionError')).toBe(true);
        await second.abortTransaction();
        await first.commitTransaction();
      } finally {
        await Promise.all([first.endSession(), second.endSession()]);
      }
      expect((await balances()).alice).toBe(99);
    });

    it('fails a transaction that writes a document changed by someone else after it started', async () => {
      const session = database.client.startSession();
      try {
        session.startTransaction();
        const seen = await accounts.findOne({ owner: 'bob' }, { session });
        await accounts.updateOne({ owner: 'bob' }, { $set: { balance: 500 } });
        const error = await accounts
          .updateOne({ owner: 'bob' }, { $set: { balance: (seen?.balance ?? 0) + 1 } }, { session })
          .catch((caught: unknown) => caught);
        expect(error).toMatchObject({ code: 112 });
        await session.abortTransaction();
      } finally {
        await session.endSession();
      }
      expect((await balances()).bob).toBe(500);
    });

    it('works over a URI with directConnection=true as well', async () => {
      const direct = await MongoClient.connect(`${database.uri}${database.uri.includes('?') ? '&' : '?'}directConnection=true`);
      try {
        const session = direct.startSession();
        await session.withTransaction(async () => {
          await direct.db().collection('accounts').updateOne({ owner: 'bob' }, { $inc: { balance: 7 } }, { session });
        });
        await session.endSession();
      } finally {
        await direct.close();
      }
      expect((await balances()).bob).toBe(7);
    });
  });

  describe('isolation and conflicts (snapshot isolation, first writer wins)', () => {
    const sessions: ClientSession[] = [];
    function session(): ClientSession {
      const opened = database.client.startSession();
      sessions.push(opened);
      return opened;
    }

    afterEach(async () => {
      for (const opened of sessions.splice(0)) {
        if (opened.inTransaction()) await opened.abortTransaction().catch(() => undefined);
        await opened.endSession();
      }
    });

    function expectTransientWriteConflict(error: unknown): void {
      expect(error).toBeInstanceOf(MongoServerError);
      expect((error as MongoServerError).code).toBe(112);
      expect((error as MongoServerError).hasErrorLabel('TransientTransactionError')).toBe(true);
    }

    it('keeps uncommitted writes invisible to reads outside the transaction and to other transactions', async () => {
      const writer = session();
      writer.startTransaction();
      await accounts.updateOne({ owner: 'alice' }, { $inc: { balance: -40 } }, { session: writer });
      await accounts.insertOne({ owner: 'dave', balance: 40 }, { session: writer });
      await accounts.deleteOne({ owner: 'bob' }, { session: writer });

      expect(await balances()).toEqual({ alice: 100, bob: 0 });
      expect(await accounts.findOne({ owner: 'dave' })).toBeNull();
      expect(await accounts.countDocuments({})).toBe(2);
      expect(await accounts.aggregate([{ $group: { _id: null, total: { $sum: '$balance' } } }]).toArray()).toEqual([{ _id: null, total: 100 }]);

      const reader = session();
      reader.startTransaction();
      const seenByOther = await accounts.find({}, { session: reader }).toArray();
      expect(Object.fromEntries(seenByOther.map((account) => [account.owner, account.balance]))).toEqual({ alice: 100, bob: 0 });
      await reader.commitTransaction();

      const inside = await accounts.find({}, { session: writer }).toArray();
      expect(Object.fromEntries(inside.map((account) => [account.owner, account.balance]))).toEqual({ alice: 60, dave: 40 });
      await writer.commitTransaction();
      expect(await balances()).toEqual({ alice: 60, dave: 40 });
    });

    it('reads a snapshot as of the transaction start: later commits by others are not seen inside it', async () => {
      const reader = session();
      reader.startTransaction();
      expect((await accounts.findOne({ owner: 'alice' }, { session: reader }))?.balance).toBe(100);

      await accounts.insertOne({ owner: 'carol', balance: 3 });
      await accounts.updateOne({ owner: 'bob' }, { $set: { balance: 7 } });
      await accounts.deleteOne({ owner: 'alice' });

      const inside = await accounts.find({}, { session: reader }).toArray();
      expect(Object.fromEntries(inside.map((account) => [account.owner, account.balance]))).toEqual({ alice: 100, bob: 0 });
      // Index-served lookups (unique index on owner) answer from the snapshot too.
      expect(await accounts.findOne({ owner: 'carol' }, { session: reader })).toBeNull();
      expect((await accounts.findOne({ owner: 'alice' }, { session: reader }))?.balance).toBe(100);
      expect((await accounts.findOne({ owner: 'bob' }, { session: reader }))?.balance).toBe(0);
      expect(await accounts.countDocuments({}, { session: reader })).toBe(2);
      await reader.commitTransaction();

      expect(await balances()).toEqual({ bob: 7, carol: 3 });
    });

    it('finds its own new and changed documents through index-served queries', async () => {
      const writer = session();
      writer.startTransaction();
      await accounts.insertOne({ owner: 'carol', balance: 1 }, { session: writer });
      await accounts.updateOne({ owner: 'alice' }, { $set: { owner: 'alicia' } }, { session: writer });

      expect((await accounts.findOne({ owner: 'carol' }, { session: writer }))?.balance).toBe(1);
      expect((await accounts.findOne({ owner: 'alicia' }, { session: writer }))?.balance).toBe(100);
      expect(await accounts.findOne({ owner: 'alice' }, { session: writer })).toBeNull();
      const range = await accounts.find({ owner: { $gte: 'alicia', $lte: 'bob' } }, { session: writer }).toArray();
      expect(range.map((account) => account.owner).sort()).toEqual(['alicia', 'bob']);
      expect(await accounts.findOne({ owner: { $in: ['carol', 'alice'] } }, { session: writer })).toMatchObject({ owner: 'carol' });
      await writer.commitTransaction();
      expect(await balances()).toEqual({ alicia: 100, bob: 0, carol: 1 });
    });

    it('fails the second transaction writing a document at once, and withTransaction retries it to success', async () => {
      const first = session();
      first.startTransaction();
      await accounts.updateOne({ owner: 'alice' }, { $inc: { balance: -1 } }, { session: first });

      const second = session();
      const errors: unknown[] = [];
      let attempts = 0;
      await second.withTransaction(async () => {
        attempts += 1;
        try {
          await accounts.updateOne({ owner: 'alice' }, { $inc: { balance: -2 } }, { session: second });
        } catch (error) {
          errors.push(error);
          // The first writer finishes; the retry then meets no conflict.
          if (attempts === 1) await first.commitTransaction();
          throw error;
        }
      });

      expect(attempts).toBe(2);
      expect(errors).toHaveLength(1);
      expectTransientWriteConflict(errors[0]);
      expect(await balances()).toEqual({ alice: 97, bob: 0 });
    });

    it('lets other transactions write other documents while one transaction is left open', async () => {
      const abandoned = session();
      abandoned.startTransaction();
      await accounts.updateOne({ owner: 'alice' }, { $inc: { balance: -1 } }, { session: abandoned });

      const other = session();
      let attempts = 0;
      await other.withTransaction(async () => {
        attempts += 1;
        await accounts.updateOne({ owner: 'bob' }, { $inc: { balance: 5 } }, { session: other });
        await accounts.insertOne({ owner: 'carol', balance: 1 }, { session: other });
      });
      expect(attempts).toBe(1);
      expect(await balances()).toEqual({ alice: 100, bob: 5, carol: 1 });
      await abandoned.abortTransaction();
    });

    it('leaves no trace after an abort: data, new collections and document claims are gone', async () => {
      const aborted = session();
      aborted.startTransaction();
      await accounts.updateOne({ owner: 'alice' }, { $set: { balance: 1 } }, { session: aborted });
      await accounts.deleteOne({ owner: 'bob' }, { session: aborted });
      await accounts.insertOne({ owner: 'ghost', balance: 9 }, { session: aborted });
      await database.db.collection('txn_only').insertOne({ a: 1 }, { session: aborted });
      await aborted.abortTransaction();

      expect(await balances()).toEqual({ alice: 100, bob: 0 });
      const names = (await database.db.listCollections().toArray()).map((collection) => collection.name);
      expect(names).not.toContain('txn_only');

      // Nobody holds the documents any more: a new transaction writes them without conflict.
      const next = session();
      await next.withTransaction(async () => {
        await accounts.updateOne({ owner: 'alice' }, { $inc: { balance: 1 } }, { session: next });
        await accounts.insertOne({ owner: 'ghost', balance: 2 }, { session: next });
      });
      expect(await balances()).toEqual({ alice: 101, bob: 0, ghost: 2 });
    });

    it('makes a commit visible to outside readers all at once', async () => {
      const writer = session();
      writer.startTransaction();
      await accounts.updateOne({ owner: 'alice' }, { $inc: { balance: -25 } }, { session: writer });
      await accounts.updateOne({ owner: 'bob' }, { $inc: { balance: 25 } }, { session: writer });

      const reads = Array.from({ length: 6 }, () => balances());
      const [, ...results] = await Promise.all([writer.commitTransaction(), ...reads, balances()]);
      for (const result of results) expect([JSON.stringify({ alice: 100, bob: 0 }), JSON.stringify({ alice: 75, bob: 25 })]).toContain(JSON.stringify(result));
      expect(await balances()).toEqual({ alice: 75, bob: 25 });
    });

    it('treats a unique key written by another open transaction as a write conflict, and its own writes as duplicates', async () => {
      const first = session();
      const second = session();
      first.startTransaction();
      second.startTransaction();
      await accounts.insertOne({ owner: 'zoe', balance: 1 }, { session: first });
      const conflict = await accounts.insertOne({ owner: 'zoe', balance: 2 }, { session: second }).catch((error: unknown) => error);
      expectTransientWriteConflict(conflict);
      await first.commitTransaction();

      const third = session();
      third.startTransaction();
      const duplicate = await accounts.insertOne({ owner: 'zoe', balance: 3 }, { session: third }).catch((error: unknown) => error);
      expect(duplicate).toMatchObject({ code: 11000 });

      // Its own writes count: a key it freed can be reused, a key it took cannot.
      const fourth = session();
      fourth.startTransaction();
      await accounts.updateOne({ owner: 'alice' }, { $set: { owner: 'alice-old' } }, { session: fourth });
      await accounts.insertOne({ owner: 'alice', balance: 5 }, { session: fourth });
      await accounts.insertOne({ owner: 'yan', balance: 0 }, { session: fourth });
      const ownDuplicate = await accounts.updateOne({ owner: 'bob' }, { $set: { owner: 'yan' } }, { session: fourth }).catch((error: unknown) => error);
      expect(ownDuplicate).toMatchObject({ code: 11000 });
      expect(fourth.inTransaction()).toBe(true);
      await fourth.abortTransaction().catch(() => undefined);

      const fifth = session();
      await fifth.withTransaction(async () => {
        await accounts.updateOne({ owner: 'alice' }, { $set: { owner: 'alice-old' } }, { session: fifth });
        await accounts.insertOne({ owner: 'alice', balance: 5 }, { session: fifth });
      });
      expect(await balances()).toEqual({ 'alice-old': 100, alice: 5, bob: 0, zoe: 1 });
    });

    it('refuses commands MongoDB does not run inside a transaction (drop, count) with OperationNotSupportedInTransaction', async () => {
      const inside = session();
      inside.startTransaction();
      await accounts.updateOne({ owner: 'alice' }, { $inc: { balance: -1 } }, { session: inside });
      const dropped = await accounts.drop({ session: inside }).catch((error: unknown) => error);
      expect(dropped).toMatchObject({ code: 263 });
      const counted = await database.db.command({ count: 'accounts' }, { session: inside }).catch((error: unknown) => error);
      expect(counted).toMatchObject({ code: 263 });
      await inside.abortTransaction().catch(() => undefined);
      expect(await balances()).toEqual({ alice: 100, bob: 0 });
    });
  });

  describe('through mongoose connection.transaction()', () => {
    let connection: mongoose.Connection;
    let Account: mongoose.Model<Document>;

    beforeAll(async () => {
      connection = await mongoose.createConnection(database.uri).asPromise();
      Account = connection.model<Document>('Account', new mongoose.Schema({ owner: { type: String, unique: true }, balance: Number }), 'accounts');
    });

    afterAll(async () => {
      await connection.close();
    });

    it('commits the writes made with the session', async () => {
      await connection.transaction(async (session) => {
        await Account.updateOne({ owner: 'alice' }, { $inc: { balance: -1 } }, { session });
        await Account.create([{ owner: 'erin', balance: 1 }], { session });
      });
      expect(await balances()).toEqual({ alice: 99, bob: 0, erin: 1 });
    });

    it('rolls back the writes when the callback throws', async () => {
      await expect(
        connection.transaction(async (session) => {
          await Account.updateOne({ owner: 'alice' }, { $inc: { balance: -1 } }, { session });
          await Account.create([{ owner: 'frank', balance: 1 }], { session });
          throw new Error('nope');
        }),
      ).rejects.toThrow('nope');
      expect(await balances()).toEqual({ alice: 100, bob: 0 });
    });
  });
});
