import type { EngineState } from './command-context';
import { CursorRegistry } from './cursors';
import { silentLogger, type EmbeddedLogger } from './logger';
import { listenForClients } from './server';
import { Storage } from './storage';
import { TransactionManager } from './transactions';
import { startTtlMonitor } from './ttl-monitor';

export type { EmbeddedLogger } from './logger';

/** A running embedded engine. */
export interface EmbeddedMongo {
  /** `mongodb://<host>:<port>` without a database path; append `/<dbname>`. */
  uri: string;
  port: number;
  /** Closes the listening socket and every client socket, so the process can exit. */
  stop(): Promise<void>;
}

export interface EmbeddedMongoOptions {
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** TCP port (default 0: any free port). */
  port?: number;
  /** pino-compatible logger; silent by default. */
  logger?: EmbeddedLogger;
  /** How often expired documents of TTL indexes are removed (default 60,000 ms, as MongoDB). */
  ttlMonitorIntervalMs?: number;
}

/**
 * Starts the in-process MongoDB-compatible development engine (in-memory data, MongoDB wire
 * protocol). See README.md in this folder for what it supports and its transaction caveats.
 */
export async function startEmbeddedMongo(options: EmbeddedMongoOptions = {}): Promise<EmbeddedMongo> {
  const host = options.host ?? '127.0.0.1';
  const storage = new Storage();
  const cursors = new CursorRegistry();
  let port = options.port ?? 0;
  let connections: () => number = () => 0;
  const engine: EngineState = {
    storage,
    cursors,
    transactions: new TransactionManager(storage),
    logger: options.logger ?? silentLogger,
    startedAt: new Date(),
    address: () => `${host}:${port}`,
    openConnections: () => connections(),
  };
  const server = await listenForClients(engine, host, port).catch((error: unknown) => {
    cursors.closeAll();
    throw error;
  });
  port = server.port;
  const stopTtlMonitor = startTtlMonitor(storage, engine.logger, options.ttlMonitorIntervalMs ?? 60_000);
  connections = server.connectionCount;
  let stopped: Promise<void> | undefined;
  return {
    uri: `mongodb://${clientHost(host)}:${port}`,
    port,
    stop: () => {
      stopTtlMonitor();
      stopped ??= server.close().then(() => {
        engine.transactions.endAllSessions();
        cursors.closeAll();
      });
      return stopped;
    },
  };
}

/** The address a local client dials for a listening interface (a wildcard one is reached on loopback). */
function clientHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
