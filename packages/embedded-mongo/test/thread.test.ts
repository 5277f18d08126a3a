import net from 'node:net';
import { MongoClient } from 'mongodb';
import { startEmbeddedMongoInThread } from '../src/thread';
import { waitFor } from './test-database';
import { RawWireClient } from './raw-wire-client';

/** A logger that records what reaches it from the engine's thread. */
function recordingLogger(debug: boolean) {
  const lines: Array<{ level: string; object: Record<string, unknown>; message: string | undefined }> = [];
  const record = (level: string) => (object: object, message?: string) => lines.push({ level, object: object as Record<string, unknown>, message });
  return { lines, logger: { debug: record('debug'), warn: record('warn'), error: record('error'), isLevelEnabled: (level: string) => level !== 'debug' || debug } };
}

/** The first recorded line of `level`, once one came. */
async function lineOf<Line extends { level: string }>(lines: Line[], level: string): Promise<Line> {
  await waitFor(() => lines.some((line) => line.level === level), 5000);
  return lines.find((line) => line.level === level)!;
}

const refused = (port: number) =>
  new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket.destroy()));
    socket.once('error', reject);
  });

describe('startEmbeddedMongoInThread', () => {
  it('serves the driver over a mongodb:// URI from its own thread, and stops (twice is fine)', async () => {
    const engine = await startEmbeddedMongoInThread();
    expect(engine.uri).toBe(`mongodb://127.0.0.1:${engine.port}`);
    expect(engine.topology).toBe('replicaSet');
    expect(engine.replicaSetName).toBe('rs0');
    const client = await MongoClient.connect(`${engine.uri}/thread?replicaSet=rs0`, { serverSelectionTimeoutMS: 2000 });
    try {
      await client.db().collection('c').insertMany([{ a: 1 }, { a: 2 }]);
      expect(await client.db().collection('c').find({}, { projection: { _id: 0 } }).sort({ a: -1 }).toArray()).toEqual([{ a: 2 }, { a: 1 }]);
    } finally {
      await client.close();
    }
    await Promise.all([engine.stop(), engine.stop()]);
    await expect(refused(engine.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('passes its options to the engine (a standalone refuses transactions)', async () => {
    const engine = await startEmbeddedMongoInThread({ topology: 'standalone' });
    const client = await MongoClient.connect(`${engine.uri}/thread`, { serverSelectionTimeoutMS: 2000 });
    try {
      expect(engine.replicaSetName).toBeUndefined();
      const hello = await client.db().admin().command({ hello: 1 });
      expect(hello.setName).toBeUndefined();
    } finally {
      await client.close();
      await engine.stop();
    }
  });

  it('rejects, saying why, when the engine cannot start: a port in use, an invalid option', async () => {
    const engine = await startEmbeddedMongoInThread();
    try {
      await expect(startEmbeddedMongoInThread({ port: engine.port })).rejects.toMatchObject({ code: 'EADDRINUSE', message: expect.stringContaining(String(engine.port)) });
      await expect(startEmbeddedMongoInThread({ replicaSetName: 'no spaces' })).rejects.toThrow('invalid replica set name "no spaces"');
    } finally {
      await engine.stop();
    }
  });

  it("hands the engine's log lines to the parent's logger; debug lines only when it wants them", async () => {
    for (const debug of [true, false]) {
      const { lines, logger } = recordingLogger(debug);
      const engine = await startEmbeddedMongoInThread({ logger });
      try {
        const raw = await RawWireClient.connect(engine.uri);
        expect((await raw.command({ noSuchCommand: 1, $db: 'admin' })).reply).toMatchObject({ ok: 0, code: 59 });
        // An impossible message length: the engine logs a warning and drops the connection.
        const header = Buffer.alloc(16);
        header.writeInt32LE(3, 0);
        raw.sendBytes(header);
        const warning = await lineOf(lines, 'warn');
        expect(warning.message).toBe('embedded mongo dropped a connection sending an invalid message length');
        expect(warning.object).toMatchObject({ length: 3, connectionId: expect.any(Number) });
        // Lines keep their order across the thread: the command error came first.
        const commandError = lines.findIndex((line) => line.level === 'debug');
        if (debug) {
          expect(lines[commandError]?.object).toMatchObject({ command: 'noSuchCommand', code: 59 });
          expect(commandError).toBeLessThan(lines.indexOf(warning));
        } else expect(commandError).toBe(-1);
      } finally {
        await engine.stop();
      }
    }
  });
});

describe('an engine thread that dies', () => {
  it('is logged; the process stays up, the driver\'s operations fail, and stop() still resolves', async () => {
    const { lines, logger } = recordingLogger(false);
    const engine = await startEmbeddedMongoInThread({ logger, maxHeapMb: 48 });
    const client = await MongoClient.connect(`${engine.uri}/dies`, { serverSelectionTimeoutMS: 1000, socketTimeoutMS: 5000 });
    try {
      const filler = 'x'.repeat(10_000);
      // Fills the engine's 48 MiB heap: its thread ends with ERR_WORKER_OUT_OF_MEMORY, and a write fails.
      await expect(
        (async () => {
          for (let batch = 0; batch < 100; batch += 1) {
            await client.db().collection('c').insertMany(Array.from({ length: 500 }, (_, i) => ({ batch, i, filler })));
          }
        })(),
      ).rejects.toThrow();
      const failure = await lineOf(lines, 'error');
      expect(failure.message).toBe('embedded mongo thread ended; database operations fail until the service restarts');
      expect(lines.filter((line) => line.level === 'error')).toHaveLength(1);
      expect(failure.object).toMatchObject({ err: { code: 'ERR_WORKER_OUT_OF_MEMORY' } });
      await expect(client.db().command({ ping: 1 })).rejects.toThrow();
      await engine.stop();
    } finally {
      await client.close(true);
    }
  });
});
