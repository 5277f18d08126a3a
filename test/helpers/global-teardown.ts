import type { EmbeddedMongo } from '@broker/embedded-mongo';
import { EMBEDDED_MONGO_HANDLE } from './global-setup';

type GlobalWithEngine = typeof globalThis & { [EMBEDDED_MONGO_HANDLE]?: EmbeddedMongo };

/** Jest global teardown: stops the embedded engine global setup started, if it started one. */
export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as GlobalWithEngine;
  const engine = holder[EMBEDDED_MONGO_HANDLE];
  if (!engine) return;
  delete holder[EMBEDDED_MONGO_HANDLE];
  await engine.stop();
  delete process.env.MONGODB_URI;
}
