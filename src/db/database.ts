import mongoose, { type Connection } from 'mongoose';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { startEmbeddedMongo } from './embedded';
import { createModels, ensureIndexes, type Models } from './models';

/** Name of the database the service uses on the embedded engine (a real URI names its own). */
export const EMBEDDED_DATABASE = 'broker';

export interface Database {
  connection: Connection;
  models: Models;
  /** `embedded` when the in-process development engine is behind the connection. */
  kind: 'embedded' | 'external';
  /** The URI with any password masked, for logs. */
  displayUri: string;
  /** Settles once the first connection succeeded and the indexes exist. */
  ready: Promise<void>;
  /** True when a ping reaches the server now. */
  isReachable(): Promise<boolean>;
  /** Closes the connection and, when embedded, stops the engine. */
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** Connect to this URI instead of config.mongodbUri (tests pass their own database). */
  uri?: string;
  /** Milliseconds between attempts while the server cannot be reached at start-up. */
  retryDelayMs?: number;
  /** Emit the driver's command events (tests count database round trips with them). */
  monitorCommands?: boolean;
}

/**
 * Opens the service's database: the real MongoDB named by MONGODB_URI, or else the embedded engine,
 * reached over an ordinary mongodb:// URI either way. The returned promise resolves once the first
 * engine (if any) is listening; `ready` settles when the first connection succeeded. If a real
 * server is down at start-up the service keeps retrying (and logging) in the background, so the
 * process stays up, /readyz answers 503, and it recovers when the server returns.
 */
export async function openDatabase(config: Config, logger: Logger, options: OpenDatabaseOptions = {}): Promise<Database> {
  let stopEngine: (() => Promise<void>) | undefined;
  let uri = options.uri ?? config.mongodbUri;
  let kind: Database['kind'] = 'external';
  if (!uri) {
    const engine = await startEmbeddedMongo({ logger: logger.child({ component: 'embedded-mongo' }) });
    stopEngine = () => engine.stop();
    uri = `${engine.uri}/${EMBEDDED_DATABASE}`;
    kind = 'embedded';
  }

  const connection = mongoose.createConnection();
  connection.set('autoIndex', false);
  let closed = false;
  connection.on('disconnected', () => {
    if (!closed) logger.warn('database connection lost; the driver keeps retrying');
  });
  connection.on('reconnected', () => logger.info('database connection restored'));
  const models = createModels(connection);
  const displayUri = maskPassword(uri);

  const ready = (async () => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await connection.openUri(uri, { serverSelectionTimeoutMS: 5000, maxPoolSize: 20, monitorCommands: options.monitorCommands ?? false });
        break;
      } catch (error) {
        if (kind === 'embedded' || closed) throw error;
        logger.error({ attempt, uri: displayUri, err: { message: (error as Error).message } }, 'cannot reach MongoDB; retrying');
        await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs ?? 2000));
      }
    }
    await ensureIndexes(models);
  })();
  // Callers await `ready` when they need it; an unobserved rejection must not kill the process.
  ready.catch(() => undefined);

  return {
    connection,
    models,
    kind,
    displayUri,
    ready,
    async isReachable() {
      try {
        await connection.db!.admin().command({ ping: 1 }, { timeoutMS: 1500 });
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      closed = true;
      await connection.close();
      await stopEngine?.();
    },
  };
}

function maskPassword(uri: string): string {
  return uri.replace(/\/\/([^:/@]+):([^@]+)@/, '//$1:***@');
}
