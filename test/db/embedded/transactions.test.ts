import { MongoClient, MongoServerError, type Collection, type Document } from 'mongodb';
import mongoose from 'mongoose';
import { openTestDatabase, type TestDatabase } from './test-database';

describe('embedded engine: transactions', () => {
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

    it('runs concurrent transactions from two sessions to completion, one after the other', async () => {
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
