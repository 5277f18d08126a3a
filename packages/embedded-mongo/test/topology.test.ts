import { Long, MongoClient, MongoServerError, ObjectId, Timestamp, UUID, type CommandStartedEvent, type Document } from 'mongodb';
import { networkInterfaces } from 'node:os';
import { startEmbeddedMongo, type EmbeddedMongo } from '../src';
import { RawWireClient } from './raw-wire-client';

/** The driver's view of the deployment (internal, but stable across 6.x and 7.x). */
function topologyType(client: MongoClient): string | undefined {
  return (client as unknown as { topology?: { description: { type: string } } }).topology?.description.type;
}

function compareTimestamps(a: Timestamp, b: Timestamp): number {
  return a.high !== b.high ? (a.high >>> 0) - (b.high >>> 0) : (a.low >>> 0) - (b.low >>> 0);
}

/**
 * The engine's two presentations, each on an engine of this file's own: by default the primary of
 * a single-node replica set, as production runs MongoDB; optionally a standalone mongod.
 */
describe('embedded engine topology: a single-node replica set', () => {
  let engine: EmbeddedMongo;
  let client: MongoClient;

  beforeAll(async () => {
    engine = await startEmbeddedMongo({ replicaSetName: 'rsTest' });
    client = await MongoClient.connect(`${engine.uri}/topology`);
  });
  afterAll(async () => {
    await client?.close();
    await engine?.stop();
  });

  it('answers hello as the primary of the set, advertising itself in hosts, primary and me', async () => {
    expect(engine.topology).toBe('replicaSet');
    expect(engine.replicaSetName).toBe('rsTest');
    const address = engine.uri.replace('mongodb://', '');
    for (const command of [{ hello: 1 }, { isMaster: 1 }]) {
      const hello = await client.db().admin().command(command);
      expect(hello).toMatchObject({ setName: 'rsTest', hosts: [address], primary: address, me: address, secondary: false, ismaster: true, ok: 1 });
      expect(hello.isWritablePrimary).toBe(true);
      expect(hello.setVersion).toBe(1);
      expect(hello.electionId).toBeInstanceOf(ObjectId);
      // No topologyVersion: the driver's monitor keeps polling instead of streaming (awaitable hello).
      expect(hello.topologyVersion).toBeUndefined();
    }
    expect(topologyType(client)).toBe('ReplicaSetWithPrimary');
  });

  it('stamps every reply, errors included, with an operationTime and an unsigned $clusterTime that only move forward', async () => {
    const first = await client.db().command({ ping: 1 });
    const second = await client.db().command({ insert: 'stamped', documents: [{ a: 1 }] });
    const failed = await client
      .db()
      .command({ frobnicate: 1 })
      .catch((error: MongoServerError) => error);
    expect(failed).toBeInstanceOf(MongoServerError);
    const failedReply = (failed as MongoServerError).errorResponse as Document;
    for (const reply of [first, second, failedReply]) {
      expect(reply.operationTime).toBeInstanceOf(Timestamp);
      expect(reply.$clusterTime.clusterTime).toBeInstanceOf(Timestamp);
      expect(Number(reply.$clusterTime.signature.keyId)).toBe(0);
      expect(Buffer.from(reply.$clusterTime.signature.hash.buffer)).toEqual(Buffer.alloc(20));
    }
    expect(compareTimestamps(second.operationTime, first.operationTime)).toBeGreaterThan(0);
    expect(compareTimestamps(failedReply.operationTime, second.operationTime)).toBeGreaterThan(0);
  });

  it('connects with ?replicaSet=<name>, with directConnection=true and with a plain URI, and refuses another set name', async () => {
    for (const [query, type] of [
      ['?replicaSet=rsTest', 'ReplicaSetWithPrimary'],
      ['?directConnection=true', 'Single'],
      ['?directConnection=false', 'ReplicaSetWithPrimary'],
      ['', 'ReplicaSetWithPrimary'],
    ]) {
      const other = await MongoClient.connect(`${engine.uri}/topology${query}`, { serverSelectionTimeoutMS: 3000 });
      try {
        await other.db().collection('uris').insertOne({ query });
        expect(await other.db().collection('uris').countDocuments({ query })).toBe(1);
        expect(topologyType(other)).toBe(type);
      } finally {
        await other.close();
      }
    }
    const wrongSet = new MongoClient(`${engine.uri}/topology?replicaSet=otherSet`, { serverSelectionTimeoutMS: 500 });
    try {
      await expect(wrongSet.db().command({ ping: 1 })).rejects.toThrow(/Server selection timed out/);
    } finally {
      await wrongSet.close();
    }
  });

  it('runs transactions over a ?replicaSet= URI', async () => {
    const other = await MongoClient.connect(`${engine.uri}/topology?replicaSet=rsTest`);
    try {
      const accounts = other.db().collection('accounts');
      await accounts.insertMany([{ _id: 'a' as unknown as ObjectId, balance: 10 }, { _id: 'b' as unknown as ObjectId, balance: 0 }]);
      await other.withSession((session) =>
        session.withTransaction(async () => {
          await accounts.updateOne({ _id: 'a' as unknown as ObjectId }, { $inc: { balance: -4 } }, { session });
          await accounts.updateOne({ _id: 'b' as unknown as ObjectId }, { $inc: { balance: 4 } }, { session });
        }),
      );
      expect((await accounts.find().sort({ _id: 1 }).toArray()).map((account) => account.balance)).toEqual([6, 4]);
    } finally {
      await other.close();
    }
  });

  it('gives causally consistent sessions: the read after a write carries afterClusterTime and sees the write', async () => {
    const monitored = await MongoClient.connect(`${engine.uri}/topology`, { monitorCommands: true });
    const started: CommandStartedEvent[] = [];
    monitored.on('commandStarted', (event) => started.push(event));
    const session = monitored.startSession({ causalConsistency: true });
    try {
      const notes = monitored.db().collection('notes');
      await notes.insertOne({ text: 'written' }, { session });
      const writeTime = session.operationTime;
      expect(writeTime).toBeInstanceOf(Timestamp);
      const read = await notes.findOne({ text: 'written' }, { session });
      expect(read?.text).toBe('written');
      const find = started.find((event) => event.commandName === 'find');
      expect(find?.command.readConcern?.afterClusterTime).toEqual(writeTime);
      // Writes outside a transaction are retryable on a replica set: the driver numbers them.
      expect(started.find((event) => event.commandName === 'insert')?.command.txnNumber).toBeDefined();
    } finally {
      await session.endSession();
      await monitored.close();
    }
  });

  it('refuses an afterClusterTime beyond the cluster time with InvalidOptions, as a replica-set member does', async () => {
    const future = new Timestamp({ t: Math.floor(Date.now() / 1000) + 3600, i: 1 });
    const error = await client
      .db()
      .command({ find: 'notes', filter: {}, readConcern: { afterClusterTime: future } })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 72, codeName: 'InvalidOptions' });
    expect((error as Error).message).toMatch(/readConcern afterClusterTime value must not be greater than the current clusterTime/);
    const reply = await client.db().command({ find: 'notes', filter: {}, readConcern: { afterClusterTime: new Timestamp({ t: 1, i: 1 }) } });
    expect(reply.ok).toBe(1);
  });

  it('moves its clock forward to a later $clusterTime a client gossips', async () => {
    const raw = await RawWireClient.connect(engine.uri);
    try {
      const later = new Timestamp({ t: Math.floor(Date.now() / 1000) + 7200, i: 5 });
      const signature = { hash: Buffer.alloc(20), keyId: Long.ZERO };
      await raw.command({ ping: 1, $db: 'admin', $clusterTime: { clusterTime: later, signature } });
      const { reply } = await raw.command({ ping: 1, $db: 'admin' });
      expect(compareTimestamps(reply.$clusterTime.clusterTime, later)).toBeGreaterThan(0);
    } finally {
      raw.close();
    }
  });
});

describe('embedded engine topology: listening on every interface', () => {
  let engine: EmbeddedMongo;

  beforeAll(async () => {
    engine = await startEmbeddedMongo({ host: '0.0.0.0' });
  });
  afterAll(async () => {
    await engine?.stop();
  });

  /** A local address other than 127.0.0.1: a real interface if the machine has one, else another loopback address. */
  function otherLocalAddress(): string {
    for (const addresses of Object.values(networkInterfaces())) {
      for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
    }
    return '127.0.0.2';
  }

  it('advertises, in hello, the address each client reached it at, and tells a client its own address', async () => {
    for (const host of ['127.0.0.1', otherLocalAddress()]) {
      const client = await MongoClient.connect(`mongodb://${host}:${engine.port}/where?directConnection=true`);
      try {
        const hello = await client.db().admin().command({ hello: 1 });
        expect(hello).toMatchObject({ me: `${host}:${engine.port}`, hosts: [`${host}:${engine.port}`], primary: `${host}:${engine.port}` });
        const { you } = await client.db().admin().command({ whatsmyuri: 1 });
        expect(you).toMatch(new RegExp(`^${host.replace(/\./g, '\\.')}:\\d+$`));
        expect(you).not.toBe(`${host}:${engine.port}`);
      } finally {
        await client.close();
      }
    }
  });

  it('lets a client that knows it by another address join the set by name', async () => {
    const host = otherLocalAddress();
    const client = await MongoClient.connect(`mongodb://${host}:${engine.port}/where?replicaSet=rs0`);
    try {
      await client.db().collection('reached').insertOne({ via: host });
      expect(await client.db().collection('reached').countDocuments()).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe('embedded engine topology: a standalone server', () => {
  let engine: EmbeddedMongo;
  let client: MongoClient;

  beforeAll(async () => {
    engine = await startEmbeddedMongo({ topology: 'standalone' });
    client = await MongoClient.connect(`${engine.uri}/standalone`);
  });
  afterAll(async () => {
    await client?.close();
    await engine?.stop();
  });

  it('answers hello like a standalone mongod: no set name, no cluster time', async () => {
    expect(engine.topology).toBe('standalone');
    expect(engine.replicaSetName).toBeUndefined();
    const hello = await client.db().admin().command({ hello: 1 });
    expect(hello.isWritablePrimary).toBe(true);
    for (const field of ['setName', 'hosts', 'primary', 'me', 'electionId', 'operationTime', '$clusterTime']) expect(hello[field]).toBeUndefined();
    expect(topologyType(client)).toBe('Single');
  });

  it('refuses every command carrying a transaction number with IllegalOperation (20), as mongod does', async () => {
    const lsid = { id: new UUID() };
    const refused = [
      { find: 'people', filter: {}, lsid, txnNumber: Long.fromNumber(1), autocommit: false, startTransaction: true },
      { insert: 'people', documents: [{ a: 1 }], lsid, txnNumber: Long.fromNumber(2) },
      { commitTransaction: 1, lsid, txnNumber: Long.fromNumber(1), autocommit: false },
    ];
    const raw = await RawWireClient.connect(engine.uri);
    try {
      for (const command of refused) {
        const { reply } = await raw.command({ ...command, $db: command.commitTransaction ? 'admin' : 'standalone' });
        expect(reply).toMatchObject({ ok: 0, code: 20, codeName: 'IllegalOperation', errmsg: 'Transaction numbers are only allowed on a replica set member or mongos' });
      }
    } finally {
      raw.close();
    }
    expect(await client.db().collection('people').countDocuments()).toBe(0);
  });

  it('fails a driver transaction with code 20, and writes nothing', async () => {
    const session = client.startSession();
    try {
      session.startTransaction();
      const error = await client
        .db()
        .collection('people')
        .findOne({}, { session })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MongoServerError);
      expect(error).toMatchObject({ code: 20, codeName: 'IllegalOperation' });
      await session.abortTransaction().catch(() => undefined);
    } finally {
      await session.endSession();
    }
    // Writes without a transaction work, and the driver sends them without a transaction number.
    await client.db().collection('people').insertOne({ name: 'outside' });
    expect(await client.db().collection('people').countDocuments()).toBe(1);
  });

  it('rejects an unknown topology and a set name on a standalone', async () => {
    await expect(startEmbeddedMongo({ topology: 'sharded' as 'standalone' })).rejects.toThrow(/unknown topology/);
    await expect(startEmbeddedMongo({ topology: 'standalone', replicaSetName: 'rs0' })).rejects.toThrow(/only valid with the replicaSet topology/);
  });
});
