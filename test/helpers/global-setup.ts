import { startEmbeddedMongo, type EmbeddedMongo } from '@broker/embedded-mongo';

/** Where global setup leaves the engine handle for global teardown (same process). */
export const EMBEDDED_MONGO_HANDLE = Symbol.for('broker-flight-gateway.embeddedMongo');

type GlobalWithEngine = typeof globalThis & { [EMBEDDED_MONGO_HANDLE]?: EmbeddedMongo };

/**
 * Jest global setup: with MONGODB_URI set the suite runs against that real server; otherwise it
 * starts the embedded engine once for the whole run (a replica set, or a standalone with
 * TEST_ENGINE_TOPOLOGY=standalone) and publishes its URI through MONGODB_URI,
 * which jest's worker processes inherit.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.MONGODB_URI) return;
  // TEST_ENGINE_TOPOLOGY=standalone runs the whole suite against an engine that refuses
  // transactions as a standalone mongod does (the service must work on both).
  const topology = process.env.TEST_ENGINE_TOPOLOGY === 'standalone' ? 'standalone' : 'replicaSet';
  const engine = await startEmbeddedMongo({ topology });
  (globalThis as GlobalWithEngine)[EMBEDDED_MONGO_HANDLE] = engine;
  process.env.MONGODB_URI = engine.uri;
}
