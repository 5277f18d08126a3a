import { Long, ObjectId, type Document } from 'bson';
import { isPlainObject } from '../bson-values';
import type { CommandContext, CommandHandler } from '../command-context';

export const EMBEDDED_VERSION = '7.0.0-embedded';
const WIRE_VERSION = 21;

/** Constant across restarts: a higher electionId or setVersion seen earlier would make a driver distrust the primary. */
const ELECTION_ID = new ObjectId('7fffffff0000000000000001');
const TERM = Long.fromNumber(1);

/**
 * By default the engine presents itself as the primary of a single-node replica set (`setName`,
 * `hosts`, `primary`, `me`, `electionId`), as production runs MongoDB: the driver then attaches
 * `txnNumber` to retryable writes, allows transactions, and `?replicaSet=<name>` URIs work, while
 * `directConnection=true` still connects to the one node. With the `standalone` topology it
 * answers like a standalone mongod (no `setName`). `topologyVersion` is left out on purpose: it
 * would switch the driver's monitor to the streaming (awaitable hello) protocol, which the engine
 * does not implement; without it the monitor polls (every 10 s).
 */
function hello(context: CommandContext, legacyName: boolean): Document {
  const { topology } = context.engine;
  rememberAppName(context);
  // The address this client reached the engine at: with a wildcard interface, another client may
  // know it under another one, and each must be told one it can dial.
  const me = context.client.localAddress;
  const now = new Date();
  const replicaSet =
    topology.kind === 'replicaSet'
      ? {
          hosts: [me],
          setName: topology.setName,
          setVersion: 1,
          secondary: false,
          primary: me,
          me,
          electionId: ELECTION_ID,
          lastWrite: {
            opTime: { ts: topology.clock.now(), t: TERM },
            lastWriteDate: now,
            majorityOpTime: { ts: topology.clock.now(), t: TERM },
            majorityWriteDate: now,
          },
        }
      : {};
  return {
    ...(legacyName ? { ismaster: true } : { isWritablePrimary: true, ismaster: true }),
    ...replicaSet,
    helloOk: true,
    maxBsonObjectSize: 16 * 1024 * 1024,
    maxMessageSizeBytes: 48_000_000,
    maxWriteBatchSize: 100_000,
    localTime: now,
    logicalSessionTimeoutMinutes: 30,
    connectionId: context.connectionId,
    minWireVersion: 0,
    maxWireVersion: WIRE_VERSION,
    readOnly: false,
    ok: 1,
  };
}

/** The driver names its application in the handshake; fail points can target it (`appName`). */
function rememberAppName({ body, client }: CommandContext): void {
  const application = isPlainObject(body.client) ? body.client.application : undefined;
  if (isPlainObject(application) && typeof application.name === 'string') client.appName = application.name;
}

function buildInfo(): Document {
  return {
    version: EMBEDDED_VERSION,
    gitVersion: 'embedded',
    versionArray: [7, 0, 0, 0],
    bits: 64,
    debug: false,
    maxBsonObjectSize: 16 * 1024 * 1024,
    storageEngines: ['embedded-memory'],
    javascriptEngine: 'none',
    modules: [],
    ok: 1,
  };
}

export const handshakeCommands: Record<string, CommandHandler> = {
  hello: (context) => hello(context, false),
  isMaster: (context) => ({ ...hello(context, true), isWritablePrimary: true }),
  ismaster: (context) => ({ ...hello(context, true), isWritablePrimary: true }),
  ping: () => ({ ok: 1 }),
  buildInfo,
  buildinfo: buildInfo,
  whatsmyuri: (context) => ({ you: context.client.remoteAddress, ok: 1 }),
  getParameter: ({ body }) => {
    const reply: Document = { ok: 1 };
    if (body.featureCompatibilityVersion !== undefined || body.getParameter === '*') reply.featureCompatibilityVersion = { version: '7.0' };
    return reply;
  },
  getCmdLineOpts: () => ({ argv: ['embedded-mongo'], parsed: {}, ok: 1 }),
  hostInfo: () => ({
    system: { currentTime: new Date(), hostname: 'embedded', numCores: 1, memSizeMB: 0 },
    os: { type: process.platform, name: process.platform, version: process.version },
    extra: {},
    ok: 1,
  }),
  serverStatus: ({ engine }) => ({
    host: engine.address(),
    version: EMBEDDED_VERSION,
    process: 'embedded-mongo',
    pid: Long.fromNumber(process.pid),
    uptime: Math.floor((Date.now() - engine.startedAt.getTime()) / 1000),
    uptimeMillis: Long.fromNumber(Date.now() - engine.startedAt.getTime()),
    localTime: new Date(),
    connections: { current: engine.openConnections(), available: 1_000_000 },
    ok: 1,
  }),
  connectionStatus: () => ({ authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 }),
  logout: () => ({ ok: 1 }),
};
