import type { EmbeddedMongo } from '../src';
import { ENGINE_HANDLE } from './global-setup';

type GlobalWithEngine = typeof globalThis & { [ENGINE_HANDLE]?: EmbeddedMongo };

/** Jest global teardown: stops the engine global setup started, if it started one. */
export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as GlobalWithEngine;
  const engine = holder[ENGINE_HANDLE];
  if (!engine) return;
  delete holder[ENGINE_HANDLE];
  await engine.stop();
  delete process.env.MONGODB_URI;
}
