import { isIP } from 'node:net';
import os from 'node:os';
import ipaddr from 'ipaddr.js';
import { isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';
import { IANAZone } from 'luxon';

export type NodeEnv = 'development' | 'production' | 'test';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type LogFormat = 'auto' | 'json' | 'pretty';

/** Key material and rules for verifying bearer tokens. At most one key source is set. */
export interface AuthConfig {
  /** HS256 shared secret (at least 32 bytes). */
  jwtSecret?: string;
  /** PEM public key (RS256, ES256 or EdDSA). */
  jwtPublicKey?: string;
  /** Remote JSON Web Key Set of an identity provider. */
  jwksUrl?: string;
  /** PEM private key used only by `npm run token` to mint tokens for an asymmetric setup. */
  jwtPrivateKey?: string;
  /** Required `iss` claim, when set. */
  issuer?: string;
  /** Required `aud` claim, when set. */
  audience?: string;
  /** Allowed clock skew for `exp` and `nbf`, in seconds. */
  clockToleranceSeconds: number;
  /** Longest a token may still live when presented (`exp` minus now), in seconds; longer ones are refused. Default 365 days. */
  maxLifetimeSeconds?: number;
}

/** Limits on client input; each one answers with a 413 or 422 naming the limit. */
export interface LimitsConfig {
  /** Largest accepted spreadsheet upload, in bytes. */
  uploadMaxBytes: number;
  /** Most data rows a passenger sheet may hold. */
  uploadMaxRows: number;
  /** Most columns a passenger sheet may hold. */
  uploadMaxColumns: number;
  /** Largest total uncompressed size of the parts of an .xlsx or .ods (zip bomb guard), in bytes. */
  uploadMaxUncompressedBytes: number;
  /** Most cells (each row counting as one more) read from a workbook's sheets or a CSV file; also bounds its XML elements (10 per cell). */
  uploadMaxCells: number;
  /** Longest a spreadsheet may take to read, in milliseconds. */
  uploadMaxParseMs: number;
  /** Largest JSON body, in bytes. */
  jsonMaxBytes: number;
  /** Largest JSON body of a request without a valid token, in bytes (beyond: 401). */
  anonymousJsonMaxBytes: number;
  /** Deepest GraphQL selection accepted. */
  graphqlMaxDepth: number;
  /** Highest estimated GraphQL query cost accepted. */
  graphqlMaxCost: number;
  /** Flights a day the cost estimate assumes for a date-range list (timelineEvents, flights). */
  graphqlCostFlightsPerDay: number;
  /** Most aliases in one GraphQL operation. */
  graphqlMaxAliases: number;
  /** Most lexical tokens in one GraphQL document (checked while parsing). */
  graphqlMaxTokens: number;
  /** Most directives in one GraphQL operation. */
  graphqlMaxDirectives: number;
  /** Most items in any one list of a request's input (GraphQL variables, a push's created/modified/deleted). */
  inputMaxListItems: number;
  /** Longest string in a GraphQL request's variables, in characters. */
  inputMaxStringLength: number;
  /** Longest a GraphQL query (and so a REST read) may run before it is stopped with QUERY_TIMEOUT, in milliseconds. */
  graphqlTimeoutMs: number;
  /** Largest answer body of /graphql and the REST facade, in bytes; a larger one is RESPONSE_TOO_LARGE (413). */
  responseMaxBytes: number;
  /** Requests one client (IP address) may make per minute to /graphql and the REST facade; 0 turns the limit off. */
  rateLimitPerMinute: number;
  /** Most passengers one flight's list may hold; bounds the stored document whatever clients push. */
  passengerListMaxPassengers: number;
}

/** Time limits on the database, so a lost or frozen server becomes a quick 503 instead of a stalled request. */
export interface DatabaseTimeoutsConfig {
  /**
   * Budget of one database operation, server selection, connection check-out and `maxTimeMS` on the
   * server included (the driver's `timeoutMS`); also how long mongoose queues operations before the
   * first connection.
   */
  operationTimeoutMs: number;
  /** Longest the driver looks for a reachable server (`serverSelectionTimeoutMS`); also the connect time-out. */
  serverSelectionTimeoutMs: number;
  /** Budget of the /readyz ping. */
  readinessTimeoutMs: number;
  /**
   * Milliseconds between the driver's checks of each server (`heartbeatFrequencyMS`): how soon a
   * database that went down, or came back, is known, and so how long data requests keep answering
   * 503 after it returned.
   */
  heartbeatFrequencyMs: number;
}

/**
 * After an answer sent before the request's body arrived in full, the connection closes; until
 * then the rest of the body is read and dropped, so the client can read the answer (src/http/lingering-close.ts).
 */
export interface LingerConfig {
  /** Longest a connection lingers after its early answer was sent. */
  maxMs: number;
  /** Most bytes read and dropped on one connection after its early answer. */
  maxBytes: number;
  /** Most connections lingering at once; an early answer beyond them closes its connection at once. */
  maxConnections: number;
}

/** Time limits on HTTP clients (Node's `server.requestTimeout` and `server.headersTimeout`). */
export interface HttpTimeoutsConfig {
  /** Longest a client may take to send a whole request, body included. */
  requestTimeoutMs: number;
  /** Longest a client may take to send the request headers. */
  headersTimeoutMs: number;
  linger: LingerConfig;
  /** How long an idle keep-alive connection stays open (Node's `keepAliveTimeout`, announced in `Keep-Alive: timeout=`). */
  keepAliveTimeoutMs: number;
}

/** Outgoing webhooks: see README.md, "Live changes → webhooks". */
export interface WebhooksConfig {
  /**
   * Networks (CIDR ranges, normalised, e.g. `127.0.0.1/32`) a receiver may be in although they are
   * not public unicast (private, loopback, link-local…); empty: public addresses only.
   */
  allowedPrivateNetworks: string[];
  /** Whether endpoint URLs must use https (in production). */
  requireHttps: boolean;
  /** Longest one delivery attempt may take, DNS, connection and answer included, in milliseconds. */
  attemptTimeoutMs: number;
  /** Delay before each retry after a failed attempt, in milliseconds (jittered by ±20 %); its length is the number of retries. */
  retryScheduleMs: number[];
  /** An endpoint without a successful delivery for this long, failing meanwhile, is disabled (milliseconds). */
  disableAfterMs: number;
  /** Milliseconds between sweeps for events and deliveries no wake-up announced (other processes, a restart). */
  sweepIntervalMs: number;
  /** Most delivery attempts in flight in one process. */
  concurrency: number;
  /** Most delivery attempts in flight to one endpoint in one process. */
  concurrencyPerEndpoint: number;
  /** Most webhook endpoints the service holds. */
  maxEndpoints: number;
  /** How long a finished (delivered or failed) delivery stays in the log, in milliseconds. */
  logRetentionMs: number;
}

/** The change feed every process reads (subscriptions, webhooks): see README.md, "Live changes". */
export interface ChangesConfig {
  /** Milliseconds between reads of the feed for events published by other processes. */
  pollMs: number;
  /** Milliseconds between sweeps that publish events a crashed writer left in an outbox. */
  sweepIntervalMs: number;
  /** How long published events are kept, in milliseconds. */
  retentionMs: number;
}

/** GraphQL subscriptions over WebSocket (graphql-ws on /graphql): see README.md, "Live changes → subscriptions". */
export interface SubscriptionsConfig {
  /** Most open WebSocket connections one token subject may hold in this process; one more is closed with 4429. */
  maxConnectionsPerSubject: number;
  /** Most subscriptions running at once on one connection; one more is answered with a TOO_MANY_REQUESTS error. */
  maxSubscriptionsPerConnection: number;
  /** Longest a client may take, after the WebSocket opens, to send `connection_init` (then 4408). */
  connectionInitTimeoutMs: number;
  /** Milliseconds between the server's pings; a peer that has not answered one by the next is dropped. */
  keepAliveMs: number;
  /** An authenticated connection without a subscription for this long is closed (1000). */
  idleTimeoutMs: number;
  /** Most bytes waiting to be sent on one socket; a consumer that lets more pile up is closed with 1013. */
  maxBufferedBytes: number;
  /** Most events waiting for one subscription; a subscription that falls further behind closes its connection with 1013. */
  maxQueuedEvents: number;
  /** Largest message a client may send, in bytes (the WebSocket closes with 1009 beyond). */
  maxMessageBytes: number;
  /**
   * Most WebSockets one client address may hold before they are authenticated (opened, no accepted
   * `connection_init` yet); one more upgrade is answered 429. Bounds what an anonymous client can hold.
   */
  maxPendingPerAddress: number;
}

/**
 * OpenTelemetry traces, on when an OTLP endpoint is set. The SDK reads the standard OTEL_* variables
 * itself (as the specification has it); these are the ones the service checks first or defaults.
 */
export interface TracingConfig {
  /** Where spans go (for the log, without credentials): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, else OTEL_EXPORTER_OTLP_ENDPOINT with `/v1/traces` (http) added. */
  endpoint: string;
  /** OTLP transport: `http/protobuf` (the default), `http/json` or `grpc`. */
  protocol: TracingProtocol;
  /** `service.name` of every span; undefined when OTEL_RESOURCE_ATTRIBUTES names it. */
  serviceName?: string;
}

export type TracingProtocol = 'http/protobuf' | 'http/json' | 'grpc';

/** The whole validated configuration of the service. */
export interface Config {
  nodeEnv: NodeEnv;
  /** TCP port the HTTP server listens on. */
  port: number;
  /** Interface the HTTP server binds to. */
  host: string;
  /** Real MongoDB connection string; unset means the embedded engine. */
  mongodbUri?: string;
  /** Host name shown in timeline entries' `url` (no scheme). */
  publicHost: string;
  /** The operator printed on passenger manifests (MANIFEST_OPERATOR); null when not configured. */
  manifestOperator: string | null;
  /** Key of signed download links (EXPORT_LINK_SECRET); null: derived from JWT_SECRET, or no links. */
  exportLinkSecret: string | null;
  /** Sender, recipient and reporting party of PAXLST exports (PAXLST_SENDER_ID…); null unless all three are set. */
  paxlst: { senderId: string; recipientId: string; reportingParty: string } | null;
  /** Absolute base URL for links in answers (no trailing slash); unset: the request's validated scheme and Host. */
  publicUrl?: string;
  /**
   * Which peers may tell the client's address and scheme through X-Forwarded-For/-Proto (Express's
   * `trust proxy`): false (none, the default), a hop count, or addresses, CIDR ranges and the names
   * loopback, linklocal, uniquelocal.
   */
  trustProxy: false | number | string[];
  /** IANA time zone in which `YYYY-MM-DD` range bounds are read. */
  timezone: string;
  logLevel: LogLevel;
  /** `json` (one object a line), `pretty` (readable lines, for a person at a terminal), or `auto`: pretty in development when stdout is a terminal, JSON otherwise. */
  logFormat: LogFormat;
  /** Prometheus metrics: collected when enabled; served at /metrics (token with metrics:read) and, when `port` is set, on that port without a token. */
  metrics: { enabled: boolean; port?: number };
  /** Whether GraphQL introspection (and so Sandbox) is on. */
  introspection: boolean;
  /** Browser origins allowed to call the API cross-origin (e.g. a FullCalendar front end); empty: none. */
  corsOrigins: string[];
  auth: AuthConfig;
  limits: LimitsConfig;
  /** Milliseconds given to in-flight requests on SIGTERM before the process exits anyway. */
  shutdownTimeoutMs: number;
  /**
   * Milliseconds after SIGTERM during which the process still accepts connections (answering each
   * request with `Connection: close`, /readyz 503), so a proxy has time to notice and stop sending.
   */
  shutdownGraceMs: number;
  database: DatabaseTimeoutsConfig;
  http: HttpTimeoutsConfig;
  changes: ChangesConfig;
  webhooks: WebhooksConfig;
  subscriptions: SubscriptionsConfig;
  /**
   * Region a passenger's phone number without a country code is read in when it is valid in none
   * of the passenger's own countries (each such number is a warning); unset: such a number is a problem.
   */
  passengerDefaultPhoneRegion?: CountryCode;
  /** Unset: no tracing at all (no SDK loaded, nothing patched). */
  tracing?: TracingConfig;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const LOG_FORMATS: LogFormat[] = ['auto', 'json', 'pretty'];
const NODE_ENVS: NodeEnv[] = ['development', 'production', 'test'];
const HOST_NAME = /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*(:\d{1,5})?$/;

/**
 * What a start-up refusal's log line needs, read leniently (the configuration may be what failed):
 * NODE_ENV and LOG_FORMAT when they are valid, else their defaults.
 */
export function startupLogSettings(env: Env = process.env): Pick<Config, 'nodeEnv' | 'logFormat'> {
  const nodeEnv = NODE_ENVS.find((value) => value === env.NODE_ENV?.trim()) ?? 'development';
  const logFormat = LOG_FORMATS.find((value) => value === env.LOG_FORMAT?.trim()) ?? 'auto';
  return { nodeEnv, logFormat };
}

const TRACING_PROTOCOLS: TracingProtocol[] = ['http/protobuf', 'http/json', 'grpc'];
export const DEFAULT_SERVICE_NAME = 'broker-flight-gateway';

/**
 * Whether, and where, to export traces. Read on its own before anything else loads (the SDK must
 * patch http, express, graphql and mongodb before they are first required: src/telemetry/register.ts),
 * and again by loadConfig, which reports a bad value the way it reports any other.
 */
export function tracingSettings(env: Env = process.env): TracingConfig | undefined {
  const read = (name: string): string | undefined => env[name]?.trim() || undefined;
  if (read('OTEL_SDK_DISABLED')?.toLowerCase() === 'true' || read('OTEL_TRACES_EXPORTER')?.toLowerCase() === 'none') return undefined;
  const variable = read('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const raw = read(variable);
  if (!raw) return undefined;
  const protocolVariable = read('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = oneOf(read(protocolVariable) ?? 'http/protobuf', TRACING_PROTOCOLS, protocolVariable);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(variable, `must be an absolute http(s) URL such as http://otel-collector:4318, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(variable, `must be an http(s) URL such as http://otel-collector:4318, got "${raw}"`);
  }
  // The specification's rule for the general variable: signal paths are appended to it (http only).
  // Credentials in the URL are the exporter's business, not the log's.
  url.username = '';
  url.password = '';
  const shown = url.search || url.hash ? url.toString() : `${url.origin}${url.pathname === '/' ? '' : url.pathname}`;
  const endpoint = variable === 'OTEL_EXPORTER_OTLP_ENDPOINT' && protocol !== 'grpc' ? `${shown.replace(/\/+$/, '')}/v1/traces` : shown;
  const namedByAttributes = /(^|,)\s*service\.name\s*=/.test(read('OTEL_RESOURCE_ATTRIBUTES') ?? '');
  const serviceName = read('OTEL_SERVICE_NAME') ?? (namedByAttributes ? undefined : DEFAULT_SERVICE_NAME);
  return { endpoint, protocol, serviceName };
}

/** Reads and validates the environment once; throws a ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const nodeEnv = oneOf(read('NODE_ENV') ?? 'development', NODE_ENVS, 'NODE_ENV');
  const mongodbUri = read('MONGODB_URI');
  if (mongodbUri && !/^mongodb(\+srv)?:\/\//.test(mongodbUri)) {
    throw new ConfigError('MONGODB_URI', 'must start with mongodb:// or mongodb+srv://');
  }
  const timezone = read('TIMEZONE') ?? 'UTC';
  if (!IANAZone.isValidZone(timezone)) {
    throw new ConfigError('TIMEZONE', `must be an IANA time zone such as Europe/Rome, got "${timezone}"`);
  }
  const publicHost = read('PUBLIC_HOST') ?? os.hostname();
  if (!HOST_NAME.test(publicHost)) {
    throw new ConfigError('PUBLIC_HOST', `must be a host name without scheme or path, such as broker.example.com, got "${publicHost}"`);
  }

  const exportLinkSecret = read('EXPORT_LINK_SECRET') ?? null;
  if (exportLinkSecret !== null && Buffer.byteLength(exportLinkSecret) < 32) {
    throw new ConfigError('EXPORT_LINK_SECRET', 'must be at least 32 bytes');
  }
  const manifestOperator = read('MANIFEST_OPERATOR') ?? null;
  if (manifestOperator !== null && manifestOperator.length > 70) {
    throw new ConfigError('MANIFEST_OPERATOR', `must be at most 70 characters (the operator's name as printed on manifests), got ${manifestOperator.length}`);
  }

  const paxlstSettings = { senderId: read('PAXLST_SENDER_ID'), recipientId: read('PAXLST_RECIPIENT_ID'), reportingParty: read('PAXLST_REPORTING_PARTY') };
  for (const [name, value] of [['PAXLST_SENDER_ID', paxlstSettings.senderId], ['PAXLST_RECIPIENT_ID', paxlstSettings.recipientId]] as const) {
    if (value !== undefined && !/^[A-Z0-9]{1,35}$/.test(value)) throw new ConfigError(name, `must be 1 to 35 upper-case letters and digits (a UNOA interchange identifier), got "${value}"`);
  }
  if (paxlstSettings.reportingParty !== undefined && paxlstSettings.reportingParty.length > 35) {
    throw new ConfigError('PAXLST_REPORTING_PARTY', `must be at most 35 characters, got ${paxlstSettings.reportingParty.length}`);
  }
  const paxlst = paxlstSettings.senderId && paxlstSettings.recipientId && paxlstSettings.reportingParty
    ? { senderId: paxlstSettings.senderId, recipientId: paxlstSettings.recipientId, reportingParty: paxlstSettings.reportingParty }
    : null;

  const auth: AuthConfig = {
    jwtSecret: read('JWT_SECRET'),
    jwtPublicKey: pem(read('JWT_PUBLIC_KEY')),
    jwksUrl: read('JWKS_URL'),
    jwtPrivateKey: pem(read('JWT_PRIVATE_KEY')),
    issuer: read('JWT_ISSUER'),
    audience: read('JWT_AUDIENCE'),
    clockToleranceSeconds: integer(env, 'JWT_CLOCK_TOLERANCE_SECONDS', 30, 0, 600),
    maxLifetimeSeconds: integer(env, 'JWT_MAX_LIFETIME_SECONDS', 365 * 86_400, 60, 10 * 365 * 86_400),
  };
  const keySources = (['JWT_SECRET', 'JWT_PUBLIC_KEY', 'JWKS_URL'] as const).filter((name) => read(name));
  if (keySources.length > 1) {
    throw new ConfigError(keySources[1], `cannot be set together with ${keySources[0]}: choose one key source`);
  }
  if (auth.jwtSecret && Buffer.byteLength(auth.jwtSecret) < 32) {
    throw new ConfigError('JWT_SECRET', 'must be at least 32 bytes long for HS256');
  }
  if (auth.jwtPublicKey && !auth.jwtPublicKey.includes('-----BEGIN PUBLIC KEY-----')) {
    throw new ConfigError('JWT_PUBLIC_KEY', 'must be a PEM "-----BEGIN PUBLIC KEY-----" block (SPKI)');
  }
  if (auth.jwtPrivateKey && !auth.jwtPrivateKey.includes('-----BEGIN PRIVATE KEY-----')) {
    throw new ConfigError('JWT_PRIVATE_KEY', 'must be a PEM "-----BEGIN PRIVATE KEY-----" block (PKCS#8)');
  }
  if (auth.jwksUrl) {
    let url: URL;
    try {
      url = new URL(auth.jwksUrl);
    } catch {
      throw new ConfigError('JWKS_URL', `must be an absolute http(s) URL, got "${auth.jwksUrl}"`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new ConfigError('JWKS_URL', 'must use https (or http for a local identity provider)');
    }
  }

  return {
    nodeEnv,
    port: integer(env, 'PORT', 4000, 0, 65535),
    host: read('HOST') ?? '0.0.0.0',
    mongodbUri,
    publicHost,
    manifestOperator,
    exportLinkSecret,
    paxlst,
    publicUrl: publicUrl(read('PUBLIC_URL')),
    trustProxy: trustProxy(read('TRUST_PROXY')),
    timezone,
    logLevel: oneOf(read('LOG_LEVEL') ?? (nodeEnv === 'test' ? 'silent' : 'info'), LOG_LEVELS, 'LOG_LEVEL'),
    logFormat: oneOf(read('LOG_FORMAT') ?? 'auto', LOG_FORMATS, 'LOG_FORMAT'),
    metrics: {
      enabled: boolean(env, 'METRICS_ENABLED', true),
      port: read('METRICS_PORT') === undefined ? undefined : integer(env, 'METRICS_PORT', 0, 1, 65535),
    },
    introspection: boolean(env, 'GRAPHQL_INTROSPECTION', nodeEnv !== 'production'),
    corsOrigins: origins(read('CORS_ORIGINS')),
    auth,
    limits: {
      uploadMaxBytes: integer(env, 'UPLOAD_MAX_BYTES', 5 * 1024 * 1024, 1024, 1024 ** 3),
      uploadMaxRows: integer(env, 'UPLOAD_MAX_ROWS', 2000, 1, 1_000_000),
      uploadMaxColumns: integer(env, 'UPLOAD_MAX_COLUMNS', 64, 1, 16384),
      uploadMaxUncompressedBytes: integer(env, 'UPLOAD_MAX_UNCOMPRESSED_BYTES', 50 * 1024 * 1024, 1024, 1024 ** 3),
      uploadMaxCells: integer(env, 'UPLOAD_MAX_CELLS', 200_000, 100, 100_000_000),
      uploadMaxParseMs: integer(env, 'UPLOAD_MAX_PARSE_MS', 10_000, 100, 600_000),
      jsonMaxBytes: integer(env, 'JSON_MAX_BYTES', 1024 * 1024, 1024, 1024 ** 3),
      anonymousJsonMaxBytes: integer(env, 'ANONYMOUS_JSON_MAX_BYTES', 64 * 1024, 1024, 1024 ** 3),
      graphqlMaxDepth: integer(env, 'GRAPHQL_MAX_DEPTH', 10, 2, 100),
      graphqlMaxCost: integer(env, 'GRAPHQL_MAX_COST', 200_000, 10, 100_000_000),
      graphqlCostFlightsPerDay: integer(env, 'GRAPHQL_COST_FLIGHTS_PER_DAY', 20, 1, 100_000),
      graphqlMaxAliases: integer(env, 'GRAPHQL_MAX_ALIASES', 20, 1, 10_000),
      graphqlMaxTokens: integer(env, 'GRAPHQL_MAX_TOKENS', 2_000, 100, 1_000_000),
      graphqlMaxDirectives: integer(env, 'GRAPHQL_MAX_DIRECTIVES', 20, 1, 10_000),
      inputMaxListItems: integer(env, 'INPUT_MAX_LIST_ITEMS', 5_000, 1, 1_000_000),
      inputMaxStringLength: integer(env, 'INPUT_MAX_STRING_LENGTH', 10_000, 100, 100_000_000),
      graphqlTimeoutMs: integer(env, 'GRAPHQL_TIMEOUT_MS', 5_000, 1, 600_000),
      responseMaxBytes: integer(env, 'RESPONSE_MAX_BYTES', 10 * 1024 * 1024, 1024, 1024 ** 3),
      rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000),
      // At most 5,000 records of ~1.3 kB keep a list, with its capped history and keys, under 8 of MongoDB's 16 MiB.
      passengerListMaxPassengers: integer(env, 'PASSENGER_LIST_MAX_PASSENGERS', 2000, 1, 5000),
    },
    ...shutdownTimes(env, nodeEnv),
    database: {
      operationTimeoutMs: integer(env, 'DB_OPERATION_TIMEOUT_MS', 5000, 100, 600_000),
      serverSelectionTimeoutMs: integer(env, 'DB_SERVER_SELECTION_TIMEOUT_MS', 3000, 100, 600_000),
      readinessTimeoutMs: integer(env, 'READINESS_TIMEOUT_MS', 2000, 100, 60_000),
      heartbeatFrequencyMs: integer(env, 'DB_HEARTBEAT_FREQUENCY_MS', 500, 100, 60_000),
    },
    http: httpTimeouts(env),
    changes: {
      pollMs: integer(env, 'CHANGE_FEED_POLL_MS', 100, 10, 60_000),
      sweepIntervalMs: integer(env, 'OUTBOX_SWEEP_INTERVAL_MS', 5000, 100, 3_600_000),
      retentionMs: integer(env, 'CHANGE_EVENTS_RETENTION_DAYS', 7, 1, 365) * 24 * 60 * 60 * 1000,
    },
    webhooks: webhooksConfig(env, nodeEnv),
    passengerDefaultPhoneRegion: phoneRegion(read('PASSENGER_DEFAULT_PHONE_REGION')),
    subscriptions: {
      maxConnectionsPerSubject: integer(env, 'WS_MAX_CONNECTIONS_PER_SUBJECT', 20, 1, 100_000),
      maxSubscriptionsPerConnection: integer(env, 'WS_MAX_SUBSCRIPTIONS_PER_CONNECTION', 20, 1, 10_000),
      connectionInitTimeoutMs: integer(env, 'WS_CONNECTION_INIT_TIMEOUT_MS', 10_000, 100, 600_000),
      keepAliveMs: integer(env, 'WS_KEEPALIVE_MS', 30_000, 100, 600_000),
      idleTimeoutMs: integer(env, 'WS_IDLE_TIMEOUT_MS', 300_000, 1000, 86_400_000),
      maxBufferedBytes: integer(env, 'WS_MAX_BUFFERED_BYTES', 1024 * 1024, 1024, 1024 ** 3),
      maxQueuedEvents: integer(env, 'WS_MAX_QUEUED_EVENTS', 100, 1, 100_000),
      maxMessageBytes: integer(env, 'WS_MAX_MESSAGE_BYTES', 64 * 1024, 1024, 64 * 1024 * 1024),
      maxPendingPerAddress: integer(env, 'WS_MAX_PENDING_CONNECTIONS_PER_ADDRESS', 20, 1, 100_000),
    },
    tracing: tracingSettings(env),
  };
}

/** A Host header worth echoing into a link: a DNS name, IPv4 or bracketed IPv6 address, and an optional port. */
export function isHostHeader(value: string): boolean {
  return HOST_NAME.test(value) || /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:.]{2,45}\])(:\d{1,5})?$/.test(value);
}

/** `https://broker.example.com` or with a path prefix; no query, fragment or credentials. */
function publicUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('PUBLIC_URL', `must be an absolute http(s) URL such as https://broker.example.com, got "${value}"`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || url.username || url.password) {
    throw new ConfigError('PUBLIC_URL', `must be an http(s) URL without query, fragment or credentials, got "${value}"`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** TRUST_PROXY: unset/false/none → trust no one; a number → that many hops; else addresses, CIDRs, names. */
function trustProxy(value: string | undefined): false | number | string[] {
  if (!value || ['false', 'none', '0'].includes(value.toLowerCase())) return false;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  return value.split(',').map((entry) => {
    const item = entry.trim();
    const [address, prefix, ...rest] = item.split('/');
    const family = isIP(address);
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (PROXY_NAMES.includes(item) || (family !== 0 && prefixOk && rest.length === 0)) return item;
    throw new ConfigError('TRUST_PROXY', `must be false, a hop count, or a comma-separated list of addresses, CIDR ranges and ${PROXY_NAMES.join(', ')}; "${item}" is none of these`);
  });
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Standard Webhooks' schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (eight attempts over 27.6 hours). */
const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/** WEBHOOK_*: production keeps https and at least a day of retries and of failures before disabling. */
function webhooksConfig(env: Env, nodeEnv: NodeEnv): WebhooksConfig {
  const retryScheduleMs = retrySchedule(env['WEBHOOK_RETRY_SCHEDULE_MS']?.trim());
  const disableAfterMs = integer(env, 'WEBHOOK_DISABLE_AFTER_MS', 5 * DAY_MS, 0, 90 * DAY_MS);
  if (nodeEnv === 'production') {
    if (retryScheduleMs.reduce((sum, delay) => sum + delay, 0) < DAY_MS) {
      throw new ConfigError('WEBHOOK_RETRY_SCHEDULE_MS', 'must add up to at least 24 hours (86400000) in production');
    }
    if (disableAfterMs < DAY_MS) throw new ConfigError('WEBHOOK_DISABLE_AFTER_MS', 'must be at least 24 hours (86400000) in production');
  }
  const concurrency = integer(env, 'WEBHOOK_CONCURRENCY', 16, 1, 256);
  const concurrencyPerEndpoint = integer(env, 'WEBHOOK_CONCURRENCY_PER_ENDPOINT', 4, 1, 256);
  if (concurrencyPerEndpoint > concurrency) {
    throw new ConfigError('WEBHOOK_CONCURRENCY_PER_ENDPOINT', `must not exceed WEBHOOK_CONCURRENCY (${concurrency}), got "${concurrencyPerEndpoint}"`);
  }
  return {
    allowedPrivateNetworks: networks(env['WEBHOOK_ALLOWED_PRIVATE_NETWORKS']?.trim()),
    requireHttps: nodeEnv === 'production',
    attemptTimeoutMs: integer(env, 'WEBHOOK_ATTEMPT_TIMEOUT_MS', 15_000, 100, 120_000),
    retryScheduleMs,
    disableAfterMs,
    sweepIntervalMs: integer(env, 'WEBHOOK_SWEEP_INTERVAL_MS', 30_000, 10, 3_600_000),
    concurrency,
    concurrencyPerEndpoint,
    maxEndpoints: integer(env, 'WEBHOOK_MAX_ENDPOINTS', 100, 1, 10_000),
    logRetentionMs: integer(env, 'WEBHOOK_LOG_RETENTION_DAYS', 30, 1, 365) * DAY_MS,
  };
}

/** `5000,300000,…`: up to 20 delays of at most 7 days each. */
function retrySchedule(value: string | undefined): number[] {
  if (!value) return DEFAULT_RETRY_SCHEDULE_MS;
  const delays = value.split(',').map((entry) => entry.trim());
  if (delays.length > 20 || delays.some((delay) => !/^\d{1,9}$/.test(delay) || Number(delay) > 7 * DAY_MS)) {
    throw new ConfigError('WEBHOOK_RETRY_SCHEDULE_MS', `must be a comma-separated list of at most 20 delays in milliseconds, each at most 7 days, got "${value}"`);
  }
  return delays.map(Number);
}

/** `127.0.0.1, 10.0.0.0/8, fd00::/8` → normalised CIDR ranges (an address alone is a range of one). */
function networks(value: string | undefined): string[] {
  if (!value) return [];
  return value.split(',').map((entry) => {
    const item = entry.trim();
    try {
      const [address, bits] = ipaddr.isValidCIDR(item) ? ipaddr.parseCIDR(item) : [ipaddr.parse(item), undefined];
      return `${address.toString()}/${bits ?? (address.kind() === 'ipv4' ? 32 : 128)}`;
    } catch {
      throw new ConfigError('WEBHOOK_ALLOWED_PRIVATE_NETWORKS', `must be a comma-separated list of IP addresses and CIDR ranges such as 127.0.0.1 or 10.0.0.0/8; "${item}" is neither`);
    }
  });
}

/** Node refuses a headers time-out longer than the request time-out; say so at start-up instead. */
function httpTimeouts(env: Env): HttpTimeoutsConfig {
  const requestTimeoutMs = integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 60_000, 1000, 3_600_000);
  const headersTimeoutMs = integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 1000, 3_600_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS', `must not exceed HTTP_REQUEST_TIMEOUT_MS (${requestTimeoutMs}), got "${headersTimeoutMs}"`);
  }
  const keepAliveTimeoutMs = integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5000, 1000, 600_000);
  return {
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs,
    linger: {
      maxMs: integer(env, 'HTTP_LINGER_MS', 10_000, 0, 600_000),
      maxBytes: integer(env, 'HTTP_LINGER_MAX_BYTES', 128 * 1024 * 1024, 0, 1024 ** 4),
      maxConnections: integer(env, 'HTTP_LINGER_MAX_CONNECTIONS', 32, 0, 100_000),
    },
  };
}

/**
 * SHUTDOWN_TIMEOUT_MS bounds the whole drain, the grace included. A production process keeps
 * accepting long enough for a proxy's health checks to notice; elsewhere briefly, so Ctrl-C is quick.
 */
function shutdownTimes(env: Env, nodeEnv: NodeEnv): Pick<Config, 'shutdownTimeoutMs' | 'shutdownGraceMs'> {
  const shutdownTimeoutMs = integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000);
  const defaultGraceMs = Math.min(nodeEnv === 'production' ? 5000 : 1000, shutdownTimeoutMs);
  const shutdownGraceMs = integer(env, 'SHUTDOWN_GRACE_MS', defaultGraceMs, 0, 600_000);
  if (shutdownGraceMs > shutdownTimeoutMs) {
    throw new ConfigError('SHUTDOWN_GRACE_MS', `must not exceed SHUTDOWN_TIMEOUT_MS (${shutdownTimeoutMs}), got "${shutdownGraceMs}"`);
  }
  return { shutdownTimeoutMs, shutdownGraceMs };
}

/** An ISO 3166-1 alpha-2 code with a telephone numbering plan, or undefined when unset. */
function phoneRegion(value: string | undefined): CountryCode | undefined {
  if (!value) return undefined;
  const code = value.toUpperCase();
  if (/^[A-Z]{2}$/.test(code) && isSupportedCountry(code)) return code;
  throw new ConfigError('PASSENGER_DEFAULT_PHONE_REGION', `must be an ISO 3166-1 alpha-2 country code with a telephone numbering plan (e.g. IT, GB), got "${value}"`);
}

function oneOf<T extends string>(value: string, allowed: readonly T[], variable: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(variable, `must be one of ${allowed.join(', ')}, got "${value}"`);
  }
  return value as T;
}

function integer(env: Env, variable: string, fallback: number, min: number, max: number): number {
  const raw = env[variable]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(variable, `must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function boolean(env: Env, variable: string, fallback: boolean): boolean {
  const raw = env[variable]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(variable, `must be true or false, got "${env[variable]}"`);
}

/** `https://a.example, http://localhost:5173` → exact origins; `*` allows any (tokens, not cookies, carry identity). */
function origins(value: string | undefined): string[] {
  if (!value) return [];
  return value.split(',').map((entry) => {
    const origin = entry.trim();
    if (origin === '*') return origin;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new ConfigError('CORS_ORIGINS', `must be a comma-separated list of origins such as https://ops.example.com, got "${origin}"`);
    }
    if (url.origin !== origin) {
      throw new ConfigError('CORS_ORIGINS', `"${origin}" is not a bare origin: write ${url.origin} (scheme, host and port only)`);
    }
    return origin;
  });
}

/** PEM keys in environment variables often arrive with literal "\n" sequences. */
function pem(value: string | undefined): string | undefined {
  return value?.replace(/\\n/g, '\n');
}
