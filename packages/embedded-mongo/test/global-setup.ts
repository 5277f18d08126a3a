import { startEmbeddedMongo, type EmbeddedMongo } from '../src';

/** Where global setup leaves the engine for global teardown (same process). */
export const ENGINE_HANDLE = Symbol.for('embedded-mongo.testEngine');

type GlobalWithEngine = typeof globalThis & { [ENGINE_HANDLE]?: EmbeddedMongo };

/**
 * Jest global setup of the package's own run: with MONGODB_URI set the tests run against that real
 * server (they state MongoDB's behaviour, so they pass on both); otherwise it starts the engine
 * once (a replica set, or a standalone with TEST_ENGINE_TOPOLOGY=standalone) and publishes its URI
 * through MONGODB_URI, which jest's worker processes inherit.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.MONGODB_URI) return;
  const topology = process.env.TEST_ENGINE_TOPOLOGY === 'standalone' ? 'standalone' : 'replicaSet';
  const engine = await startEmbeddedMongo({ topology });
  (globalThis as GlobalWithEngine)[ENGINE_HANDLE] = engine;
  process.env.MONGODB_URI = engine.uri;
}
