import { MongoServerError, type ClientSession } from 'mongodb';
import { describeWithTransactions } from './topology';
import { openTestDatabase, type TestDatabase } from './test-database';

/**
 * Collections and indexes a transaction creates belong to it until it commits: nobody else sees
 * them before, an abort leaves nothing behind, and new indexes on collections that already
 * existed are refused, as MongoDB 7.0 does. Expectations are MongoDB's behaviour.
 */
describeWithTransactions('embedded engine: collections and indexes created inside a transaction', () => {
  let database: TestDatabase;
  const sessions: ClientSession[] = [];

  function session(): ClientSession {
    const opened = database.client.startSession();
    sessions.push(opened);
    return opened;
  }

  beforeAll(async () => {
    database = await openTestDatabase('txn_catalog');
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

  const collectionNames = async () => (await database.db.listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name);
  const indexNames = async (name: string) => (await database.db.collection(name).listIndexes().toArray()).map((index) => index.name as string);

  it('keeps a new collection, its indexes and documents invisible outside until the commit', async () => {
    const creator = session();
    creator.startTransaction();
    await database.db.createCollection('fresh', { session: creator });
    await database.db.collection('fresh').createIndex({ code: 1 }, { unique: true, session: creator });
    await database.db.collection('fresh').insertOne({ code: 'a' }, { session: creator });
    await database.db.collection('implicit').insertOne({ n: 1 }, { session: creator });
    // Inside, the transaction sees what it made; its unique index is already enforced there.
    expect(await database.db.collection('fresh').countDocuments({}, { session: creator })).toBe(1);
    const duplicate = await database.db
      .collection('fresh')
      .insertOne({ code: 'a' }, { session: creator })
      .catch((error: unknown) => error);
    expect(duplicate).toMatchObject({ code: 11000 });
    await creator.abortTransaction();

    const retry = session();
    await retry.withTransaction(async () => {
      await database.db.createCollection('fresh', { session: retry });
      await database.db.collection('fresh').createIndex({ code: 1 }, { unique: true, session: retry });
      await database.db.collection('fresh').insertOne({ code: 'a' }, { session: retry });
      await database.db.collection('implicit').insertOne({ n: 1 }, { session: retry });
      expect(await collectionNames()).not.toEqual(expect.arrayContaining(['fresh']));
      expect(await collectionNames()).not.toEqual(expect.arrayContaining(['implicit']));
      expect(await database.db.collection('fresh').find({}).toArray()).toEqual([]);
    });
    expect(await collectionNames()).toEqual(expect.arrayContaining(['fresh', 'implicit']));
    expect(await indexNames('fresh')).toEqual(['_id_', 'code_1']);
    expect(await database.db.collection('fresh').find({}, { projection: { _id: 0 } }).toArray()).toEqual([{ code: 'a' }]);
  });

  it('leaves nothing behind when the transaction aborts', async () => {
    const aborted = session();
    aborted.startTransaction();
    await database.db.createCollection('never', { session: aborted });
    await database.db.collection('never').createIndex({ k: 1 }, { session: aborted });
    await database.db.collection('never_implicit').insertOne({ n: 1 }, { session: aborted });
    await aborted.abortTransaction();
    expect(await collectionNames()).not.toEqual(expect.arrayContaining(['never']));
    expect(await collectionNames()).not.toEqual(expect.arrayContaining(['never_implicit']));
    // The names are free again, outside transactions too.
    await database.db.createCollection('never');
    expect(await indexNames('never')).toEqual(['_id_']);
  });

  it('refuses a new index on a collection that existed before the transaction (263), and accepts an existing one', async () => {
    const existing = database.db.collection('existing');
    await existing.insertOne({ k: 1 });
    await existing.createIndex({ k: 1 });
    const inside = session();
    inside.startTransaction();
    await existing.insertOne({ k: 2 }, { session: inside });
    await existing.createIndex({ k: 1 }, { session: inside });
    const refused = await existing.createIndex({ other: 1 }, { session: inside }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MongoServerError);
    expect((refused as MongoServerError).code).toBe(263);
    expect((refused as MongoServerError).message).toContain('Cannot create new indexes on existing collection');
    expect(await indexNames('existing')).toEqual(['_id_', 'k_1']);
  });

  it('makes an insert outside wait while a transaction is creating its collection, then lands in it', async () => {
    const creator = session();
    creator.startTransaction();
    await database.db.collection('contested').insertOne({ by: 'transaction' }, { session: creator });
    let settled = false;
    const outside = database.db
      .collection('contested')
      .insertOne({ by: 'outside' })
      .finally(() => (settled = true));
    await database.db.command({ ping: 1 });
    expect(settled).toBe(false);
    await creator.commitTransaction();
    await outside;
    const documents = await database.db.collection('contested').find({}, { projection: { _id: 0 } }).toArray();
    expect(documents).toEqual(expect.arrayContaining([{ by: 'transaction' }, { by: 'outside' }]));
    expect(documents).toHaveLength(2);
  });

  it('fails a second transaction creating the same collection with a transient (retryable) error', async () => {
    const first = session();
    const second = session();
    first.startTransaction();
    second.startTransaction();
    await database.db.collection('twice').insertOne({ n: 1 }, { session: first });
    const conflict = await database.db
      .collection('twice')
      .insertOne({ n: 2 }, { session: second })
      .catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(MongoServerError);
    expect((conflict as MongoServerError).hasErrorLabel('TransientTransactionError')).toBe(true);
    await first.commitTransaction();
    expect(await database.db.collection('twice').countDocuments()).toBe(1);
  });
});
