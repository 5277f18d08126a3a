import { MongoClient, type Db } from 'mongodb';
import { isEmbeddedEngine, openTestDatabase, type TestDatabase } from './test-database';
import { decodeMsgBody, decodeReplyDocument, RawWireClient } from './raw-wire-client';

describe('embedded engine: handshake, admin commands and the wire protocol', () => {
  let database: TestDatabase;
  let db: Db;
  let embedded: boolean;

  beforeAll(async () => {
    database = await openTestDatabase('wire');
    db = database.db;
    embedded = await isEmbeddedEngine(db);
  });

  afterAll(async () => {
    await database.close();
  });

  it('answers hello as a writable primary with sessions and a supported wire version range', async () => {
    const hello = await db.admin().command({ hello: 1 });
    expect(hello.isWritablePrimary).toBe(true);
    expect(hello.logicalSessionTimeoutMinutes).toBeGreaterThan(0);
    expect(hello.maxWireVersion).toBeGreaterThanOrEqual(9);
    expect(hello.maxBsonObjectSize).toBe(16 * 1024 * 1024);
    expect(hello.localTime).toBeInstanceOf(Date);
    const legacy = await db.admin().command({ isMaster: 1 });
    expect(legacy.ismaster).toBe(true);
  });

  it('answers ping, buildInfo, listDatabases, serverStatus, hostInfo, getParameter and endSessions', async () => {
    expect(await db.admin().command({ ping: 1 })).toMatchObject({ ok: 1 });
    const info = await db.admin().command({ buildInfo: 1 });
    expect(typeof info.version).toBe('string');
    expect(Array.isArray(info.versionArray)).toBe(true);
    await db.collection('present').insertOne({ a: 1 });
    const listed = await db.admin().listDatabases({ nameOnly: true });
    expect(listed.databases.map((entry) => entry.name)).toContain(db.databaseName);
    expect((await db.admin().command({ serverStatus: 1 })).ok).toBe(1);
    expect((await db.admin().command({ hostInfo: 1 })).ok).toBe(1);
    expect((await db.admin().command({ getParameter: 1, featureCompatibilityVersion: 1 })).featureCompatibilityVersion).toBeDefined();
    expect((await db.admin().command({ endSessions: [] })).ok).toBe(1);
  });

  it('connects with a plain URI, with directConnection=true and with directConnection=false', async () => {
    for (const option of ['', 'directConnection=true', 'directConnection=false']) {
      const uri = option ? `${database.uri}${database.uri.includes('?') ? '&' : '?'}${option}` : database.uri;
      const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 3000 });
      try {
        expect(await client.db().collection('present').countDocuments()).toBe(1);
      } finally {
        await client.close();
      }
    }
  });

  it('rejects unknown commands with CommandNotFound, naming MONGODB_URI on the embedded engine', async () => {
    const error = await db.command({ frobnicate: 1 }).catch((caught: unknown) => caught as { code: number; codeName: string; message: string });
    expect(error).toMatchObject({ code: 59, codeName: 'CommandNotFound' });
    if (!embedded) return;
    expect(error.message).toBe("no such command: 'frobnicate'. The embedded development engine does not support it; set MONGODB_URI to use a real MongoDB.");
  });

  describe('raw wire traffic (embedded engine only)', () => {
    let raw: RawWireClient;

    beforeEach(async () => {
      raw = await RawWireClient.connect(database.uri);
    });

    afterEach(() => {
      raw.close();
    });

    it('answers a legacy OP_QUERY isMaster with an OP_REPLY', async () => {
      if (!embedded) return;
      const { frame, requestId } = raw.queryFrame('admin.$cmd', { isMaster: 1 });
      const reply = raw.nextFrame();
      raw.sendBytes(frame);
      const received = await reply;
      expect(received.readInt32LE(8)).toBe(requestId);
      expect(decodeReplyDocument(received)).toMatchObject({ ismaster: true, ok: 1 });
    });

    it('sends no reply to a moreToCome message but still executes it', async () => {
      if (!embedded) return;
      const { frame } = raw.msgFrame({ insert: 'fire_and_forget', documents: [{ a: 1 }], writeConcern: { w: 0 }, $db: db.databaseName }, 0x2);
      raw.sendBytes(frame);
      const { requestId, responseTo, reply } = await raw.command({ count: 'fire_and_forget', $db: db.databaseName });
      expect(responseTo).toBe(requestId);
      expect(reply.n).toBe(1);
    });

    it('answers a message with corrupt BSON with an error and keeps serving the connection', async () => {
      if (!embedded) return;
      const { frame } = raw.msgFrame({ ping: 1, $db: 'admin' });
      frame.writeInt32LE(9999, 21);
      const reply = raw.nextFrame();
      raw.sendBytes(frame);
      expect(decodeMsgBody(await reply)).toMatchObject({ ok: 0 });
      expect((await raw.command({ ping: 1, $db: 'admin' })).reply).toMatchObject({ ok: 1 });
    });

    it('drops only the offending connection when a frame length is impossible', async () => {
      if (!embedded) return;
      const garbage = Buffer.alloc(8);
      garbage.writeInt32LE(3, 0);
      raw.sendBytes(garbage);
      // The engine closes the connection once it read the impossible length: wait for that, not a fixed time.
      while (!raw.closed) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await db.admin().command({ ping: 1 })).toMatchObject({ ok: 1 });
    });

    it('turns a command document that is not a command into an error reply', async () => {
      if (!embedded) return;
      const { reply } = await raw.command({ find: 42, $db: db.databaseName });
      expect(reply).toMatchObject({ ok: 0, code: expect.any(Number), codeName: expect.any(String), errmsg: expect.any(String) });
    });
  });
});
