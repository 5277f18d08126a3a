import { Long, MongoClient, MongoServerError, type ClientSession, type CommandStartedEvent, type Document } from 'mongodb';
import { startEmbeddedMongo, type EmbeddedMongo } from '../src';

/**
 * Retryable writes: a driver that loses the reply of a write (a dropped connection, a timeout)
 * retries it once with the same session and `txnNumber`; the engine answers the retry with the
 * first outcome instead of applying the write twice, as a replica-set member does. The lost reply
 * is produced for real: an open transaction holds the document (or the new collection) the write
 * needs, so the write waits past the client's socket timeout; the driver gives up on that
 * connection and retries, and the transaction commits once the retry is on its way. Both attempts
 * then reach the engine, and the write must still be applied once.
 */
describe('embedded engine: retryable writes are applied once', () => {
  let engine: EmbeddedMongo;
  let admin: MongoClient;
  let impatient: MongoClient;
  let started: CommandStartedEvent[];
  let holder: ClientSession;

  beforeAll(async () => {
    engine = await startEmbeddedMongo();
    admin = await MongoClient.connect(`${engine.uri}/retryable`);
    impatient = await MongoClient.connect(`${engine.uri}/retryable`, { socketTimeoutMS: 1000, monitorCommands: true });
    impatient.on('commandStarted', (event) => started.push(event));
  });

  beforeEach(async () => {
    started = [];
    await admin.db().collection('counters').deleteMany({});
    await admin.db().collection('counters').insertOne({ _id: 'visits', n: 0 } as Document);
    holder = admin.startSession();
    holder.startTransaction();
  });

  afterEach(async () => {
    if (holder.inTransaction()) await holder.abortTransaction();
    await holder.endSession();
  });

  afterAll(async () => {
    await impatient?.close();
    await admin?.close();
    await engine?.stop();
  });

  const counters = () => impatient.db().collection('counters');
  const sent = (name: string) => started.filter((event) => event.commandName === name);

  /** Runs a write the open transaction holds up; commits that transaction once the driver's retry has been sent. */
  async function withLostReply<T>(command: string, write: () => Promise<T>): Promise<T> {
    const retrySent = new Promise<void>((resolve) => {
      const listener = (event: CommandStartedEvent) => {
        if (event.commandName !== command || sent(command).length < 2) return;
        impatient.off('commandStarted', listener);
        resolve();
      };
      impatient.on('commandStarted', listener);
    });
    const pending = write();
    await retrySent;
    await holder.commitTransaction();
    const result = await pending;
    const attempts = sent(command);
    expect(attempts).toHaveLength(2);
    expect(attempts[1].command.txnNumber).toEqual(attempts[0].command.txnNumber);
    return result;
  }

  it('answers a retried update with the first outcome instead of incrementing twice', async () => {
    await admin.db().collection('counters').updateOne({ _id: 'visits' } as Document, { $set: { seen: true } }, { session: holder });
    const result = await withLostReply('update', () => counters().updateOne({ _id: 'visits' } as Document, { $inc: { n: 1 } }));
    expect(result.modifiedCount).toBe(1);
    expect(await admin.db().collection('counters').findOne({ _id: 'visits' } as Document)).toEqual({ _id: 'visits', n: 1, seen: true });
  });

  it('answers a retried insert with its first success rather than a duplicate key error', async () => {
    await admin.db().collection('fresh').insertOne({ _id: 'first' } as Document, { session: holder });
    const result = await withLostReply('insert', () => impatient.db().collection('fresh').insertOne({ _id: 'once' } as Document));
    expect(result.insertedId).toBe('once');
    expect(await admin.db().collection('fresh').countDocuments({ _id: 'once' } as Document)).toBe(1);
  });

  it('answers a retried findAndModify with the document the first attempt returned', async () => {
    await admin.db().collection('counters').updateOne({ _id: 'visits' } as Document, { $set: { seen: true } }, { session: holder });
    const before = await withLostReply('findAndModify', () => counters().findOneAndUpdate({ _id: 'visits' } as Document, { $inc: { n: 5 } }, { returnDocument: 'before' }));
    expect(before).toEqual({ _id: 'visits', n: 0, seen: true });
    expect(await admin.db().collection('counters').findOne({ _id: 'visits' } as Document)).toEqual({ _id: 'visits', n: 5, seen: true });
  });

  describe("with MongoDB's onPrimaryTransactionalWrite fail point (engine started with testCommands)", () => {
    let faulty: EmbeddedMongo;
    let client: MongoClient;

    beforeAll(async () => {
      faulty = await startEmbeddedMongo({ testCommands: true });
      client = await MongoClient.connect(`${faulty.uri}/retryable`);
    });
    afterAll(async () => {
      await client?.close();
      await faulty?.stop();
    });
    beforeEach(async () => {
      await client.db().collection('docs').deleteMany({});
    });

    const failPoint = (settings: Document) => client.db('admin').command({ configureFailPoint: 'onPrimaryTransactionalWrite', ...settings });

    it('applies the write once when the reply is lost after it was applied', async () => {
      await failPoint({ mode: { times: 1 } });
      await client.db().collection('docs').insertOne({ _id: 'applied' } as Document);
      const updated = await client.db().collection('docs').findOneAndUpdate({ _id: 'applied' } as Document, { $inc: { n: 1 } }, { returnDocument: 'after' });
      expect(updated).toEqual({ _id: 'applied', n: 1 });
      expect(await failPoint({ mode: 'off' })).toMatchObject({ count: 1 });
      expect(await client.db().collection('docs').find({}).toArray()).toEqual([{ _id: 'applied', n: 1 }]);
    });

    it('applies it on the retry when the first attempt failed before applying, and not at all when both do', async () => {
      await failPoint({ mode: { times: 1 }, data: { failBeforeCommitExceptionCode: 1 } });
      await client.db().collection('docs').insertOne({ _id: 'second try' } as Document);
      await failPoint({ mode: { times: 2 }, data: { failBeforeCommitExceptionCode: 1 } });
      const error = await client
        .db()
        .collection('docs')
        .insertOne({ _id: 'never' } as Document)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      expect(await client.db().collection('docs').find({}).toArray()).toEqual([{ _id: 'second try' }]);
    });
  });

  describe('through explicit transaction numbers', () => {
    let session: ClientSession;
    beforeAll(() => {
      session = admin.startSession();
    });
    afterAll(async () => {
      await session.endSession();
    });
    // Numbers far above the ones the driver gave the (pooled) server session before.
    const run = (body: Document) => admin.db().command(body, { session });

    it('replays the recorded answer for the same number, refuses an older one (225), and forgets it when the session ends', async () => {
      const first = await run({ update: 'counters', updates: [{ q: { _id: 'visits' }, u: { $inc: { n: 1 } } }], txnNumber: Long.fromNumber(1000) });
      const replay = await run({ update: 'counters', updates: [{ q: { _id: 'visits' }, u: { $inc: { n: 1 } } }], txnNumber: Long.fromNumber(1000) });
      expect(replay).toMatchObject({ n: first.n, nModified: first.nModified, ok: 1 });
      expect(await admin.db().collection('counters').findOne({ _id: 'visits' } as Document)).toEqual({ _id: 'visits', n: 1 });

      const tooOld = await run({ insert: 'counters', documents: [{ _id: 'late' }], txnNumber: Long.fromNumber(999) }).catch((error: unknown) => error);
      expect(tooOld).toBeInstanceOf(MongoServerError);
      expect(tooOld).toMatchObject({ code: 225 });
      expect(await admin.db().collection('counters').countDocuments({ _id: 'late' } as Document)).toBe(0);

      await admin.db('admin').command({ endSessions: [session.id] });
      await run({ update: 'counters', updates: [{ q: { _id: 'visits' }, u: { $inc: { n: 1 } } }], txnNumber: Long.fromNumber(1000) });
      expect(await admin.db().collection('counters').findOne({ _id: 'visits' } as Document)).toEqual({ _id: 'visits', n: 2 });
    });
  });
});
