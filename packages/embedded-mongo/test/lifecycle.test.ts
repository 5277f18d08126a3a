import net from 'node:net';
import { MongoClient } from 'mongodb';
import { startEmbeddedMongo } from '../src';

describe('startEmbeddedMongo', () => {
  it('listens on a free port by default and publishes a database-less mongodb:// URI', async () => {
    const engine = await startEmbeddedMongo();
    try {
      expect(engine.port).toBeGreaterThan(0);
      expect(engine.uri).toBe(`mongodb://127.0.0.1:${engine.port}`);
      const client = await MongoClient.connect(`${engine.uri}/lifecycle`);
      await client.db().collection('c').insertOne({ a: 1 });
      expect(await client.db().collection('c').countDocuments()).toBe(1);
      await client.close();
    } finally {
      await engine.stop();
    }
  });

  it('keeps separate data per engine instance', async () => {
    const first = await startEmbeddedMongo();
    const second = await startEmbeddedMongo();
    try {
      const a = await MongoClient.connect(`${first.uri}/db`);
      const b = await MongoClient.connect(`${second.uri}/db`);
      await a.db().collection('c').insertOne({ a: 1 });
      expect(await b.db().collection('c').countDocuments()).toBe(0);
      await Promise.all([a.close(), b.close()]);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });

  it('fails to start on a port that is already taken', async () => {
    const engine = await startEmbeddedMongo();
    try {
      await expect(startEmbeddedMongo({ port: engine.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await engine.stop();
    }
  });

  it('closes the listening socket and open client connections on stop', async () => {
    const engine = await startEmbeddedMongo();
    const client = await MongoClient.connect(`${engine.uri}/lifecycle`, { serverSelectionTimeoutMS: 300 });
    await client.db().command({ ping: 1 });
    await engine.stop();
    await expect(client.db().command({ ping: 1 })).rejects.toThrow();
    await client.close();
    await expect(
      new Promise((resolve, reject) => {
        const socket = net.connect(engine.port, '127.0.0.1', () => resolve(socket.destroy()));
        socket.once('error', reject);
      }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('TTL indexes', () => {
  it('removes documents whose indexed date is older than expireAfterSeconds', async () => {
    const engine = await startEmbeddedMongo({ ttlMonitorIntervalMs: 20 });
    const client = await MongoClient.connect(`${engine.uri}/ttl`);
    try {
      const sessions = client.db().collection('sessions');
      await sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 60 });
      await sessions.insertMany([
        { name: 'stale', lastSeen: new Date(Date.now() - 120_000) },
        { name: 'fresh', lastSeen: new Date() },
        { name: 'no date', lastSeen: 'yesterday' },
      ]);
      // A liveness bound only: the engine's TTL pass runs about every second, later on a loaded machine.
      const deadline = Date.now() + 60_000;
      while ((await sessions.countDocuments()) > 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await sessions.find({}).toArray()).map((doc) => doc.name).sort()).toEqual(['fresh', 'no date']);
    } finally {
      await client.close();
      await engine.stop();
    }
  });
});
