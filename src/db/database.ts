import type { MongoClient } from 'mongodb';
import mongoose, { type Connection, type MongooseQueryMiddleware, type Query, type Schema } from 'mongoose';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { isDatabaseUnavailable } from './database-errors';
import { DatabaseHealth } from './database-health';
import { startEmbeddedEngine } from './embedded-engine';

/** Name of the database the service uses on the embedded engine (a real URI names its own). */
export const EMBEDDED_DATABASE = 'broker';

/** The models a caller binds to the connection (src/models.ts, the service's registry): the database layer knows none of them. */
export type ModelSet = Record<string, { createIndexes(): Promise<unknown> }>;

export interface Database<M extends ModelSet = ModelSet> {
  connection: Connection;
  models: M;
  /** `embedded` when the development engine (in a worker thread of this process) is behind the connection. */
  kind: 'embedded' | 'external';
  /** The URI with any password masked, for logs. */
  displayUri: string;
  /** Settles once the first connection succeeded and the indexes exist. */
  ready: Promise<void>;
  /**
   * Whether the server runs transactions: true for a replica-set member or a mongos, false for a
   * standalone mongod (which refuses them with IllegalOperation). Known once `ready` resolved;
   * undefined before, or if the server could not be asked. The service itself uses no transaction
   * (see README.md, "A real MongoDB"): this tells code that would want one whether it may.
   */
  readonly supportsTransactions: boolean | undefined;
  /** Whether the database is known to be down (from the driver's heartbeats): data requests then answer 503 at once. */
  health: DatabaseHealth;
  /**
   * True when a ping reaches the server within the readiness time-out (READINESS_TIMEOUT_MS); false
   * at once while the database is known to be down.
   */
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
  /** Called with each driver client as it is created, before it connects (metrics listen to its events); turns command events on. */
  observeClient?: (client: MongoClient) => void;
}

/**
 * Opens the service's database: the real MongoDB named by MONGODB_URI, or else the embedded engine,
 * reached over an ordinary mongodb:// URI either way. The returned promise resolves once the first
 * engine (if any) is listening; `ready` settles when the first connection succeeded. If a real
 * server is down at start-up the service keeps retrying (and logging) in the background, so the
 * process stays up, /readyz answers 503, and it recovers when the server returns.
 *
 * Every operation has a time budget (config.database): a lost or frozen server fails a request
 * with a driver time-out or network error, which the error formatter turns into a 503, instead of
 * holding it for the operating system's TCP time-outs.
 */
export async function connectDatabase<M extends ModelSet>(
  config: Config,
  logger: Logger,
  defineModels: (connection: Connection) => M,
  options: OpenDatabaseOptions = {},
): Promise<Database<M>> {
  const target = await chooseServer(config, logger, options);
  const timeouts = config.database;
  const state = { closed: false, supportsTransactions: undefined as boolean | undefined };
  const connection = mongoose.createConnection();
  connection.set('autoIndex', false);
  // Registered before defineModels: connection plugins apply to the models defined afterwards.
  // A little under the client's wait, so a slow but live server answers MaxTimeMSExpired first.
  connection.plugin(limitServerTime(serverTimeLimitMs(timeouts.operationTimeoutMs)));
  connection.on('disconnected', () => {
    if (!state.closed) logger.warn('database connection lost; the driver keeps retrying');
  });
  connection.on('reconnected', () => logger.info('database connection restored'));
  const models = defineModels(connection);
  const health = new DatabaseHealth(logger);
  const ready = prepare({ connection, models, health, target, logger, options, state, driverOptions: driverOptions(timeouts, options) });
  // Callers await `ready` when they need it; an unobserved rejection must not kill the process.
  ready.catch(() => undefined);

  return {
    connection,
    models,
    kind: target.kind,
    displayUri: target.displayUri,
    ready,
    health,
    get supportsTransactions() {
      return state.supportsTransactions;
    },
    isReachable: () => isReachable(connection, health, timeouts.readinessTimeoutMs),
    async close() {
      state.closed = true;
      await connection.close();
      await target.stopEngine?.();
    },
  };
}

interface ServerTarget {
  uri: string;
  kind: Database['kind'];
  displayUri: string;
  stopEngine?: () => Promise<void>;
}

/** The URI given (options, then MONGODB_URI), or else the embedded engine, started here. */
async function chooseServer(config: Config, logger: Logger, options: OpenDatabaseOptions): Promise<ServerTarget> {
  const uri = options.uri ?? config.mongodbUri;
  if (uri) return { uri, kind: 'external', displayUri: maskPassword(uri) };
  const engine = await startEmbeddedEngine({ logger: logger.child({ component: 'embedded-mongo' }) });
  const engineUri = `${engine.uri}/${EMBEDDED_DATABASE}`;
  return { uri: engineUri, kind: 'embedded', displayUri: maskPassword(engineUri), stopEngine: () => engine.stop() };
}

/**
 * Driver 7.8 made the single `timeoutMS` budget a no-op (it could desynchronise the pool), so
 * every stage of an operation gets its own limit. Reads and writes are retried once after a
 * network error, so one attempt gets half of the operation's budget: the whole, retry included,
 * stays within DB_OPERATION_TIMEOUT_MS.
 */
function driverOptions(timeouts: Config['database'], options: OpenDatabaseOptions) {
  const attemptMs = Math.floor(timeouts.operationTimeoutMs / 2);
  return {
    serverSelectionTimeoutMS: timeouts.serverSelectionTimeoutMs,
    // Opening a connection, and the monitor's check: a frozen server is marked unknown after this.
    connectTimeoutMS: attemptMs,
    // Waiting for a free pooled connection (all of them may be stuck on a frozen server).
    waitQueueTimeoutMS: attemptMs,
    // Silence on a connection (a frozen server): the driver closes the connection and the attempt fails.
    socketTimeoutMS: attemptMs,
    // Before the first connection mongoose queues operations, by default for 10 s.
    bufferTimeoutMS: timeouts.operationTimeoutMs,
    maxPoolSize: 20,
    // How soon a server that went down, or came back, is known (DatabaseHealth).
    heartbeatFrequencyMS: timeouts.heartbeatFrequencyMs,
    monitorCommands: options.monitorCommands ?? options.observeClient !== undefined,
  };
}

/** Connects, asks about transactions and builds the models' indexes, retrying while a real server is unreachable. */
async function prepare(deps: {
  connection: Connection;
  models: ModelSet;
  health: DatabaseHealth;
  target: ServerTarget;
  logger: Logger;
  options: OpenDatabaseOptions;
  state: { closed: boolean; supportsTransactions: boolean | undefined };
  driverOptions: ReturnType<typeof driverOptions>;
}): Promise<void> {
  const { connection, models, health, target, logger, options, state } = deps;
  let connected = false;
  for (let attempt = 1; ; attempt += 1) {
    try {
      if (!connected) {
        const opening = connection.openUri(target.uri, deps.driverOptions);
        // openUri creates the client before its first await: listeners see the first command.
        const client = connection.getClient() as MongoClient | undefined;
        if (client && options.observeClient) options.observeClient(client);
        await opening;
        health.watch(connection.getClient());
        connected = true;
      }
      state.supportsTransactions = await askTransactionSupport(connection, logger);
      await Promise.all(Object.values(models).map((model) => model.createIndexes()));
      break;
    } catch (error) {
      // A server that is down, or too slow for the time limits on a loaded machine, is waited
      // for; any other failure (an index the data contradicts) ends the start-up.
      if (target.kind === 'embedded' || state.closed || (connected && !isDatabaseUnavailable(error))) throw error;
      logger.error({ attempt, uri: target.displayUri, err: { message: (error as Error).message } }, connected ? 'cannot prepare the database; retrying' : 'cannot reach MongoDB; retrying');
      await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs ?? 2000));
    }
  }
  if (state.supportsTransactions === false) {
    logger.warn(
      { database: target.displayUri },
      'MongoDB is a standalone server, without transactions or retryable writes; the service runs correctly on it (its writes need no transaction), but a replica set is recommended',
    );
  }
}

/** A ping within the readiness time-out; false at once before the first connection or while the database is known down. */
async function isReachable(connection: Connection, health: DatabaseHealth, readinessTimeoutMs: number): Promise<boolean> {
  const db = connection.db;
  if (!db || health.knownDown) return false;
  // The driver does not honour the signal at every stage (a ping sent as the server died waited
  // out the whole server selection): the answer does not wait for the ping past the limit.
  const signal = AbortSignal.timeout(readinessTimeoutMs);
  const ping = db.admin().command({ ping: 1 }, { signal }).then(
    () => true,
    () => false,
  );
  const expired = new Promise<boolean>((resolve) => signal.addEventListener('abort', () => resolve(false), { once: true }));
  return Promise.race([ping, expired]);
}

/**
 * Asks the server what it is, as drivers do: transactions need a replica-set member (`setName` in
 * `hello`) or a mongos (`msg: 'isdbgrid'`); a standalone mongod refuses them.
 */
async function askTransactionSupport(connection: Connection, logger: Logger): Promise<boolean | undefined> {
  try {
    const hello = await connection.db!.admin().command({ hello: 1 });
    return typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
  } catch (error) {
    logger.warn({ err: { message: (error as Error).message } }, 'could not ask MongoDB whether it supports transactions');
    return undefined;
  }
}

/**
 * The `maxTimeMS` sent with reads: a little under one attempt's share of DB_OPERATION_TIMEOUT_MS
 * (an attempt and its retry share the budget), so a slow but live server answers MaxTimeMSExpired
 * before the client gives up. Exported for reads sent as commands (src/timeline/one-reply-aggregate.ts).
 */
export function serverTimeLimitMs(operationTimeoutMs: number): number {
  return Math.max(50, Math.floor(operationTimeoutMs / 2) - 250);
}

const READS: MongooseQueryMiddleware[] = ['find', 'findOne', 'countDocuments', 'distinct', 'findOneAndUpdate', 'findOneAndDelete', 'findOneAndReplace'];

/**
 * Sends maxTimeMS with every read and find-and-modify, so the server itself stops work a client
 * has stopped waiting for; a query that sets its own keeps it.
 */
function limitServerTime(maxTimeMs: number) {
  return (schema: Schema) => {
    schema.pre(READS, { document: false, query: true }, function (this: Query<unknown, unknown>) {
      if (this.getOptions().maxTimeMS === undefined) this.maxTimeMS(maxTimeMs);
    });
    schema.pre('aggregate', function () {
      if (this.options.maxTimeMS === undefined) this.option({ maxTimeMS: maxTimeMs });
    });
  };
}

function maskPassword(uri: string): string {
  return uri.replace(/\/\/([^:/@]+):([^@]+)@/, '//$1:***@');
}
