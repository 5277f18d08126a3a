import { ClusterClock } from './cluster-time';
import type { EngineState, EngineTopology } from './command-context';
import { CursorRegistry } from './cursors';
import { FailPoints } from './fail-points';
import { silentLogger, type EmbeddedLogger } from './logger';
import { RetryableWrites } from './retryable-writes';
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
  /** `replicaSet` or `standalone` (see EmbeddedMongoOptions.topology). */
  topology: 'replicaSet' | 'standalone';
  /** The replica set's name, with the replicaSet topology: `${uri}/db?replicaSet=${replicaSetName}` works. */
  replicaSetName: string | undefined;
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
  /**
   * `replicaSet` (default): a single-node replica set, as production runs MongoDB, so transactions,
   * causally consistent sessions and `?replicaSet=<replicaSetName>` URIs work. `standalone`: a
   * standalone mongod, which refuses transactions (code 20), to test code meant to run on one.
   */
  topology?: 'replicaSet' | 'standalone';
  /** The replica set's name (default `rs0`); only with the `replicaSet` topology. */
  replicaSetName?: string;
  /**
   * Answers test commands (`configureFailPoint` with MongoDB's `failCommand` fail point), as mongod
   * does with `enableTestCommands`; off by default, when they do not exist (CommandNotFound).
   */
  testCommands?: boolean;
}

/** The replica set name the engine answers with unless told otherwise. */
export const DEFAULT_REPLICA_SET_NAME = 'rs0';

/**
 * Starts the in-process MongoDB-compatible development engine (in-memory data, MongoDB wire
 * protocol). See README.md in this folder for what it supports and its transaction caveats.
 */
export async function startEmbeddedMongo(options: EmbeddedMongoOptions = {}): Promise<EmbeddedMongo> {
  const host = options.host ?? '127.0.0.1';
  const topology = topologyOf(options);
  const storage = new Storage();
  const cursors = new CursorRegistry();
  let port = options.port ?? 0;
  let connections: () => number = () => 0;
  const engine: EngineState = {
    storage,
    cursors,
    transactions: new TransactionManager(storage),
    retryableWrites: new RetryableWrites(),
    failPoints: options.testCommands === true ? new FailPoints() : undefined,
    logger: options.logger ?? silentLogger,
    startedAt: new Date(),
    // The address hello advertises (`me`, `hosts`): the one a local client dials.
    address: () => `${clientHost(host)}:${port}`,
    openConnections: () => connections(),
    topology,
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
    topology: topology.kind,
    replicaSetName: topology.kind === 'replicaSet' ? topology.setName : undefined,
    stop: () => {
      stopTtlMonitor();
      stopped ??= server.close().then(() => {
        engine.transactions.endAllSessions();
        engine.retryableWrites.forgetAll();
        cursors.closeAll();
      });
      return stopped;
    },
  };
}

function topologyOf(options: EmbeddedMongoOptions): EngineTopology {
  const kind = options.topology ?? 'replicaSet';
  if (kind === 'standalone') {
    if (options.replicaSetName !== undefined) throw new Error('replicaSetName is only valid with the replicaSet topology');
    return { kind };
  }
  if (kind !== 'replicaSet') throw new Error(`unknown topology "${String(kind)}": use 'replicaSet' or 'standalone'`);
  const setName = options.replicaSetName ?? DEFAULT_REPLICA_SET_NAME;
  if (!/^[A-Za-z0-9_-]+$/.test(setName)) throw new Error(`invalid replica set name "${setName}"`);
  return { kind, setName, clock: new ClusterClock() };
}

/** The address a local client dials for a listening interface (a wildcard one is reached on loopback). */
function clientHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
