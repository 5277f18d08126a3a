import { MongoClient, MongoNetworkError, MongoServerError, MongoWriteConcernError, type CommandStartedEvent, type Document } from 'mongodb';
import { startEmbeddedMongo, type EmbeddedMongo } from '../src';
import { RawWireClient } from './raw-wire-client';

/**
 * MongoDB's `failCommand` fail point (`configureFailPoint`, a test command): off unless the engine
 * is started with `testCommands: true` (as mongod needs `enableTestCommands`); then the mode and
 * data shapes of MongoDB's specification tests inject errors, closed connections, delays and
 * write concern errors through the real wire protocol.
 */
describe('embedded engine: configureFailPoint failCommand', () => {
  let engine: EmbeddedMongo;
  let client: MongoClient;
  let started: CommandStartedEvent[];

  beforeAll(async () => {
    engine = await startEmbeddedMongo({ testCommands: true });
    client = await MongoClient.connect(`${engine.uri}/failpoints`, { monitorCommands: true });
    client.on('commandStarted', (event) => started.push(event));
  });

  beforeEach(async () => {
    started = [];
    await client.db().collection('items').deleteMany({});
  });

  afterEach(async () => {
    await failPoint({ mode: 'off' });
  });

  afterAll(async () => {
    await client?.close();
    await engine?.stop();
  });

  const failPoint = (settings: Document) => client.db('admin').command({ configureFailPoint: 'failCommand', ...settings });
  const items = () => client.db().collection('items');
  const sent = (name: string) => started.filter((event) => event.commandName === name).length;
  const outcome = <T>(promise: Promise<T>) => promise.then(() => undefined, (error: unknown) => error);

  it('does not exist unless test commands are enabled, and only runs against admin', async () => {
    const plain = await startEmbeddedMongo();
    const plainClient = await MongoClient.connect(`${plain.uri}/x`);
    try {
      const missing = await outcome(plainClient.db('admin').command({ configureFailPoint: 'failCommand', mode: 'alwaysOn' }));
      expect(missing).toMatchObject({ code: 59 });
    } finally {
      await plainClient.close();
      await plain.stop();
    }
    const notAdmin = await outcome(client.db().command({ configureFailPoint: 'failCommand', mode: 'off' }));
    expect(notAdmin).toMatchObject({ code: 13 });
  });

  it('fails the listed commands {times: n} with the error code, then lets them through', async () => {
    await items().insertOne({ a: 1 });
    await failPoint({ mode: { times: 2 }, data: { failCommands: ['find'], errorCode: 2 } });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const error = await outcome(items().findOne({}));
      expect(error).toBeInstanceOf(MongoServerError);
      expect(error).toMatchObject({ code: 2, codeName: 'BadValue', message: "Failing command via 'failCommand' failpoint" });
    }
    // Other commands were never affected; the third find passes; the reply counts the activations.
    expect(await items().countDocuments()).toBe(1);
    expect(await items().findOne({}, { projection: { _id: 0 } })).toEqual({ a: 1 });
    expect(await failPoint({ mode: 'off' })).toMatchObject({ count: 2 });
  });

  it('lets {skip: n} activations through first, and alwaysOn fails until turned off', async () => {
    await failPoint({ mode: { skip: 1 }, data: { failCommands: ['count'], errorCode: 8 } });
    expect(await client.db().command({ count: 'items' })).toMatchObject({ n: 0 });
    expect(await outcome(client.db().command({ count: 'items' }))).toMatchObject({ code: 8, codeName: 'UnknownError' });
    expect(await outcome(client.db().command({ count: 'items' }))).toMatchObject({ code: 8 });
    await failPoint({ mode: 'alwaysOn', data: { failCommands: ['count'], errorCode: 8 } });
    expect(await outcome(client.db().command({ count: 'items' }))).toMatchObject({ code: 8 });
    await failPoint({ mode: 'off' });
    expect(await client.db().command({ count: 'items' })).toMatchObject({ n: 0 });
  });

  it('labels a retryable error on a retryable write, so the driver retries it once and the write lands once', async () => {
    await failPoint({ mode: { times: 1 }, data: { failCommands: ['insert'], errorCode: 91 } });
    await items().insertOne({ retried: true });
    expect(sent('insert')).toBe(2);
    expect(await items().countDocuments({ retried: true })).toBe(1);
    // errorLabels replaces the server's own labels: without RetryableWriteError the driver does not retry.
    await failPoint({ mode: { times: 1 }, data: { failCommands: ['insert'], errorCode: 91, errorLabels: [] } });
    const error = await outcome(items().insertOne({ retried: false }));
    expect(error).toMatchObject({ code: 91, codeName: 'ShutdownInProgress' });
    expect((error as MongoServerError).hasErrorLabel('RetryableWriteError')).toBe(false);
    expect(sent('insert')).toBe(3);
  });

  it('closes the connection instead of answering (closeConnection)', async () => {
    const noRetry = await MongoClient.connect(`${engine.uri}/failpoints`, { retryWrites: false });
    try {
      await failPoint({ mode: { times: 1 }, data: { failCommands: ['insert'], closeConnection: true } });
      const error = await outcome(noRetry.db().collection('items').insertOne({ lost: true }));
      expect(error).toBeInstanceOf(MongoNetworkError);
      expect(await items().countDocuments({ lost: true })).toBe(0);
      // With retryable writes the driver reconnects and retries.
      await failPoint({ mode: { times: 1 }, data: { failCommands: ['insert'], closeConnection: true } });
      await items().insertOne({ recovered: true });
      expect(await items().countDocuments({ recovered: true })).toBe(1);
    } finally {
      await noRetry.close();
    }
  });

  it('applies the write, then reports the writeConcernError', async () => {
    await failPoint({ mode: { times: 1 }, data: { failCommands: ['insert'], writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' } } });
    const noRetry = await MongoClient.connect(`${engine.uri}/failpoints`, { retryWrites: false });
    try {
      const error = await outcome(noRetry.db().collection('items').insertOne({ written: true }));
      expect(error).toBeInstanceOf(MongoWriteConcernError);
      expect(error).toMatchObject({ code: 64 });
    } finally {
      await noRetry.close();
    }
    expect(await items().countDocuments({ written: true })).toBe(1);
  });

  it('delays the command by blockTimeMS (blockConnection), long enough for a socket timeout to end it', async () => {
    const impatient = await MongoClient.connect(`${engine.uri}/failpoints`, { socketTimeoutMS: 100, retryReads: false });
    try {
      await failPoint({ mode: { times: 1 }, data: { failCommands: ['find'], blockConnection: true, blockTimeMS: 2000 } });
      const error = await outcome(impatient.db().collection('items').findOne({}));
      expect(error).toBeInstanceOf(MongoNetworkError);
      // Once the fail point is used up, the same client reads again.
      expect(await impatient.db().collection('items').findOne({})).toBeNull();
    } finally {
      await impatient.close();
    }
  });

  it('fails only the connections of the named application (appName, from the handshake)', async () => {
    // A connection that names its application in its handshake, as drivers do with `appName`.
    const target = await RawWireClient.connect(engine.uri);
    try {
      await target.command({ hello: 1, client: { application: { name: 'target-app' }, driver: { name: 'raw', version: '0' } }, $db: 'admin' });
      await failPoint({ mode: 'alwaysOn', data: { failCommands: ['find'], errorCode: 2, appName: 'target-app' } });
      expect(await items().findOne({})).toBeNull();
      const { reply } = await target.command({ find: 'items', filter: {}, $db: 'failpoints' });
      expect(reply).toMatchObject({ ok: 0, code: 2, errmsg: "Failing command via 'failCommand' failpoint" });
    } finally {
      target.close();
    }
  });

  it('labels transaction errors as MongoDB does, so withTransaction retries the statement and the commit', async () => {
    const session = client.startSession();
    try {
      await failPoint({ mode: { times: 1 }, data: { failCommands: ['insert'], errorCode: 10107 } });
      let attempts = 0;
      await session.withTransaction(async () => {
        attempts += 1;
        await items().insertOne({ inTransaction: attempts }, { session });
      });
      expect(attempts).toBe(2);

      await failPoint({ mode: { times: 1 }, data: { failCommands: ['commitTransaction'], errorCode: 91 } });
      await session.withTransaction(async () => {
        await items().insertOne({ committedAfterRetry: true }, { session });
      });
      expect(sent('commitTransaction')).toBe(3);
    } finally {
      await session.endSession();
    }
    expect(await items().countDocuments({ inTransaction: 2 })).toBe(1);
    expect(await items().countDocuments({ inTransaction: 1 })).toBe(0);
    expect(await items().countDocuments({ committedAfterRetry: true })).toBe(1);
  });

  it('refuses fail points it does not implement and malformed settings', async () => {
    expect(await outcome(client.db('admin').command({ configureFailPoint: 'failGetMoreAfterCursorCheckout', mode: 'alwaysOn' }))).toMatchObject({ code: 115 });
    expect(await outcome(failPoint({ mode: 'sometimes' }))).toMatchObject({ code: 2 });
    expect(await outcome(failPoint({ mode: 'alwaysOn', data: { failCommands: ['find'], blockConnection: true } }))).toMatchObject({ code: 72 });
  });
});
