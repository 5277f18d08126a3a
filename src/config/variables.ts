import os from 'node:os';
import { tracingFrom } from './tracing';
import { combined, derived, NODE_ENVS, variable } from './variable';
import {
  baseUrl,
  daysInMs,
  delays,
  DAY_MS,
  flag,
  hostName,
  httpUrl,
  mongodbUri,
  networks,
  oneOf,
  origins,
  pemBlock,
  phoneRegion,
  text,
  timeZone,
  trustedProxies,
  wholeNumber,
} from './values';

/**
 * Every environment variable the service reads, declared once: where its value goes in the
 * configuration (the key path), its name, how it is read and bounded (schema), its default, the
 * docs section and text. The `Config` type is read off this tree; docs/configuration.md's tables
 * and .env.example are generated from it (`npm run docs:config`). Cross-variable rules are in
 * rules.ts. How to add a variable: CONTRIBUTING.md, "Configuration".
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
const GiB = 1024 ** 3;
const TEN_YEARS_S = 10 * 365 * 86_400;

const auth = {
  jwtSecret: variable({ name: 'JWT_SECRET', section: 'auth', schema: text({ minBytes: 32, why: 'long for HS256' }), example: 'change-me-to-at-least-32-random-bytes', description: 'HS256 secret, at least 32 bytes' }),
  jwtPublicKey: variable({
    name: 'JWT_PUBLIC_KEY',
    section: 'auth',
    schema: pemBlock('PUBLIC KEY', 'SPKI'),
    example: '"-----BEGIN PUBLIC KEY-----\\n...\\n-----END PUBLIC KEY-----"',
    description: 'PEM (SPKI) public key: RS256, ES256 or EdDSA, from the key type; `\\n` sequences are read as line breaks',
  }),
  jwksUrl: variable({
    name: 'JWKS_URL',
    section: 'auth',
    schema: httpUrl('https (or http for a local identity provider)'),
    example: 'https://idp.example.com/realms/broker/protocol/openid-connect/certs',
    description: 'Identity provider key set (Keycloak, Auth0, Entra ID…), cached, rotated by `kid`',
  }),
  jwksTimeoutMs: variable({
    name: 'JWKS_TIMEOUT_MS',
    section: 'auth',
    schema: wholeNumber(100, 60_000, 'ms'),
    default: '5000',
    description: 'Longest one fetch of the `JWKS_URL` key set may take; then it failed. Requests that need the fetch share it (one at a time)',
  }),
  jwksFailureCooldownMs: variable({
    name: 'JWKS_FAILURE_COOLDOWN_MS',
    section: 'auth',
    schema: wholeNumber(100, 600_000, 'ms'),
    default: '10000',
    description:
      'After a failed fetch of the `JWKS_URL` key set, how long no other is tried: a token that needs the set answers 503 at once, with `Retry-After`. See [Authentication](authentication.md#an-identity-provider-that-cannot-answer)',
  }),
  jwksStaleIfErrorMs: variable({
    name: 'JWKS_STALE_IF_ERROR_MS',
    section: 'auth',
    schema: wholeNumber(0, 7 * DAY_MS, 'ms'),
    default: '3600000',
    description:
      'How long past its 10-minute refresh a fetched `JWKS_URL` key set still verifies tokens while fetching a new one fails (the most a key withdrawn meanwhile can still be used); 0: not at all',
  }),
  jwtPrivateKey: variable({
    name: 'JWT_PRIVATE_KEY',
    section: 'auth',
    schema: pemBlock('PRIVATE KEY', 'PKCS#8'),
    example: '"-----BEGIN PRIVATE KEY-----\\n...\\n-----END PRIVATE KEY-----"',
    description: 'PEM (PKCS#8) key used only by `npm run token` to mint tokens for an asymmetric setup',
  }),
  issuer: variable({ name: 'JWT_ISSUER', section: 'auth', schema: text(), example: 'https://idp.example.com/realms/broker', description: 'Required `iss` claim of every token, when set' }),
  audience: variable({ name: 'JWT_AUDIENCE', section: 'auth', schema: text(), example: 'broker-gateway', description: 'Required `aud` claim of every token, when set' }),
  clockToleranceSeconds: variable({ name: 'JWT_CLOCK_TOLERANCE_SECONDS', section: 'auth', schema: wholeNumber(0, 600, 'seconds'), default: '30', description: 'Allowed clock skew for `exp` and `nbf`' }),
  maxLifetimeSeconds: variable({
    name: 'JWT_MAX_LIFETIME_SECONDS',
    section: 'auth',
    schema: wholeNumber(60, TEN_YEARS_S, 'seconds'),
    default: String(365 * 86_400),
    description: 'Longest a presented token may still live (`exp` minus now); a longer-lived one is refused',
  }),
};

const limits = {
  uploadMaxBytes: variable({ name: 'UPLOAD_MAX_BYTES', section: 'passengers', schema: wholeNumber(1024, GiB, 'bytes'), default: String(5 * 1024 ** 2), description: 'Largest spreadsheet upload' }),
  uploadMaxRows: variable({ name: 'UPLOAD_MAX_ROWS', section: 'passengers', schema: wholeNumber(1, 1_000_000), default: '2000', description: 'Most data rows in a spreadsheet' }),
  uploadMaxColumns: variable({ name: 'UPLOAD_MAX_COLUMNS', section: 'passengers', schema: wholeNumber(1, 16384), default: '64', description: 'Most columns in a spreadsheet' }),
  uploadMaxUncompressedBytes: variable({
    name: 'UPLOAD_MAX_UNCOMPRESSED_BYTES',
    section: 'passengers',
    schema: wholeNumber(1024, GiB, 'bytes'),
    default: String(50 * 1024 ** 2),
    description: "Largest total uncompressed size of a workbook's parts, .xlsx or .ods (zip bomb guard)",
  }),
  uploadMaxCells: variable({
    name: 'UPLOAD_MAX_CELLS',
    section: 'passengers',
    schema: wholeNumber(100, 100_000_000),
    default: '200000',
    description: "Most cells (each row counting as one more) read from a workbook's sheets or a CSV file; also bounds the XML elements read (10 per cell). Over it: 413",
  }),
  uploadMaxParseMs: variable({ name: 'UPLOAD_MAX_PARSE_MS', section: 'passengers', schema: wholeNumber(100, 600_000, 'ms'), default: '10000', description: 'Longest a spreadsheet may take to read; over it: 413' }),
  jsonMaxBytes: variable({ name: 'JSON_MAX_BYTES', section: 'requests', schema: wholeNumber(1024, GiB, 'bytes'), default: String(1024 ** 2), description: 'Largest JSON body' }),
  anonymousJsonMaxBytes: variable({
    name: 'ANONYMOUS_JSON_MAX_BYTES',
    section: 'requests',
    schema: wholeNumber(1024, GiB, 'bytes'),
    default: String(64 * 1024),
    description:
      'Largest JSON body of a request without a valid token (introspection needs a few kB); beyond it 401 before the body is read. Multipart bodies on `/graphql` (uploads) need a token before any byte is read',
  }),
  graphqlMaxDepth: variable({ name: 'GRAPHQL_MAX_DEPTH', section: 'requests', schema: wholeNumber(2, 100), default: '10', description: 'Deepest selection accepted' }),
  graphqlMaxCost: variable({
    name: 'GRAPHQL_MAX_COST',
    section: 'requests',
    schema: wholeNumber(10, 100_000_000),
    default: '200000',
    description: 'Highest estimated query cost accepted (a list counts its selection once per row it can hold; see [GraphQL](graphql.md))',
  }),
  graphqlCostFlightsPerDay: variable({
    name: 'GRAPHQL_COST_FLIGHTS_PER_DAY',
    section: 'requests',
    schema: wholeNumber(1, 100_000),
    default: '20',
    description: 'Flights a day the cost estimate assumes in a date range (`timelineEvents`, `flights`)',
  }),
  graphqlMaxAliases: variable({ name: 'GRAPHQL_MAX_ALIASES', section: 'requests', schema: wholeNumber(1, 10_000), default: '20', description: 'Most aliases in one operation' }),
  graphqlMaxTokens: variable({ name: 'GRAPHQL_MAX_TOKENS', section: 'requests', schema: wholeNumber(100, 1_000_000), default: '2000', description: 'Most tokens in one GraphQL document (checked while parsing)' }),
  graphqlMaxDirectives: variable({ name: 'GRAPHQL_MAX_DIRECTIVES', section: 'requests', schema: wholeNumber(1, 10_000), default: '20', description: 'Most directives in one operation' }),
  inputMaxListItems: variable({
    name: 'INPUT_MAX_LIST_ITEMS',
    section: 'requests',
    schema: wholeNumber(1, 1_000_000),
    default: '5000',
    description: "Most items in one list of GraphQL variables or of a push body's `created`/`modified`/`deleted` (413 beyond)",
  }),
  inputMaxStringLength: variable({ name: 'INPUT_MAX_STRING_LENGTH', section: 'requests', schema: wholeNumber(100, 100_000_000), default: '10000', description: 'Longest string in GraphQL variables, in characters (413 beyond)' }),
  graphqlTimeoutMs: variable({ name: 'GRAPHQL_TIMEOUT_MS', section: 'requests', schema: wholeNumber(1, 600_000, 'ms'), default: '5000', description: 'Longest a query (and so a REST read) may run before `QUERY_TIMEOUT`' }),
  responseMaxBytes: variable({
    name: 'RESPONSE_MAX_BYTES',
    section: 'requests',
    schema: wholeNumber(1024, GiB, 'bytes'),
    default: String(10 * 1024 ** 2),
    description: 'Largest answer of `/graphql` and the REST facade (413 `RESPONSE_TOO_LARGE` beyond)',
  }),
  timelineLargeReadsMax: variable({
    name: 'TIMELINE_LARGE_READS_MAX',
    section: 'requests',
    schema: wholeNumber(1, 10_000),
    default: '2',
    description:
      'Large timeline reads (`timelineEvents` and the REST timeline routes) served at once (two: one is built while the next reads); more wait their turn, within their `GRAPHQL_TIMEOUT_MS`. Bounds the memory and the collector work they cause: see [Performance](performance.md#scaling-to-20000-flights)',
  }),
  timelineLargeReadsQueue: variable({
    name: 'TIMELINE_LARGE_READS_QUEUE',
    section: 'requests',
    schema: wholeNumber(0, 100_000),
    default: '64',
    description: 'Large timeline reads that may wait for a turn; one more answers 503 with `Retry-After`',
  }),
  timelineLargeReadEntries: variable({
    name: 'TIMELINE_LARGE_READ_ENTRIES',
    section: 'requests',
    schema: wholeNumber(1, 10_000_000),
    default: '2000',
    description: 'A timeline read is large from this many estimated entries on: its range’s days × `GRAPHQL_COST_FLIGHTS_PER_DAY`. Smaller reads never wait',
  }),
  pdfRendersMax: variable({
    name: 'PDF_RENDERS_MAX',
    section: 'exports',
    schema: wholeNumber(1, 1000),
    default: '2',
    description:
      'PDF passenger manifests rendered at once; more wait their turn, until their client goes away. A render is laid out in slices with a turn of the event loop between them, but every render in flight adds a slice to each turn and holds its pages in memory',
  }),
  pdfRendersQueue: variable({
    name: 'PDF_RENDERS_QUEUE',
    section: 'exports',
    schema: wholeNumber(0, 100_000),
    default: '16',
    description: 'PDF manifests that may wait for a turn to be rendered; one more answers 503 with `Retry-After`',
  }),
  rateLimitPerMinute: variable({
    name: 'RATE_LIMIT_PER_MINUTE',
    section: 'requests',
    schema: wholeNumber(0, 1_000_000),
    default: '600',
    description: 'Requests per minute on `/graphql` and the REST facade, per client address and per token subject; `0` turns it off',
  }),
  // At most 5,000 records of ~1.3 kB keep a list, with its capped history and keys, under 8 of MongoDB's 16 MiB.
  passengerListMaxPassengers: variable({
    name: 'PASSENGER_LIST_MAX_PASSENGERS',
    section: 'passengers',
    schema: wholeNumber(1, 5000),
    default: '2000',
    description: "Most passengers on one flight's list, whatever clients push; over it a push is a 422",
  }),
};

const database = {
  operationTimeoutMs: variable({
    name: 'DB_OPERATION_TIMEOUT_MS',
    section: 'database',
    schema: wholeNumber(100, 600_000, 'ms'),
    default: '5000',
    description: 'Longest one database operation may take (server selection, connection check-out and its automatic retry included); then the request answers 503. Also how long operations wait for the first connection. See [Time limits](operations.md#time-limits)',
  }),
  serverSelectionTimeoutMs: variable({
    name: 'DB_SERVER_SELECTION_TIMEOUT_MS',
    section: 'database',
    schema: wholeNumber(100, 600_000, 'ms'),
    default: '3000',
    description: 'Longest the driver looks for a reachable server before an operation fails (503); also the connect time-out',
  }),
  readinessTimeoutMs: variable({ name: 'READINESS_TIMEOUT_MS', section: 'database', schema: wholeNumber(100, 60_000, 'ms'), default: '2000', description: "Longest `/readyz` waits for the database's ping before answering 503" }),
  heartbeatFrequencyMs: variable({
    name: 'DB_HEARTBEAT_FREQUENCY_MS',
    section: 'database',
    schema: wholeNumber(100, 60_000, 'ms'),
    default: '500',
    description: 'How often the driver checks each server: how soon a database that went down is known (data requests then answer 503 at once) and one that returned is served again',
  }),
};

const http = {
  requestTimeoutMs: variable({
    name: 'HTTP_REQUEST_TIMEOUT_MS',
    section: 'http',
    schema: wholeNumber(1000, 3_600_000, 'ms'),
    default: '60000',
    description: "Longest a client may take to send a whole request, body included (Node's `requestTimeout`); then 408 and the connection is closed",
  }),
  headersTimeoutMs: variable({
    name: 'HTTP_HEADERS_TIMEOUT_MS',
    section: 'http',
    schema: wholeNumber(1000, 3_600_000, 'ms'),
    default: '10000',
    description: "Longest a client may take to send the request headers (Node's `headersTimeout`); at most `HTTP_REQUEST_TIMEOUT_MS`",
  }),
  keepAliveTimeoutMs: variable({
    name: 'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    section: 'http',
    schema: wholeNumber(1000, 600_000, 'ms'),
    default: '5000',
    description: "How long an idle keep-alive connection stays open (Node's `keepAliveTimeout`, announced as `Keep-Alive: timeout=`); a proxy's upstream idle time-out should be shorter",
  }),
  /** After an answer sent before the request's body arrived in full, the rest is read and dropped, then the connection closes (src/http/lingering-close.ts). */
  linger: {
    maxMs: variable({
      name: 'HTTP_LINGER_MS',
      section: 'http',
      schema: wholeNumber(0, 600_000, 'ms'),
      default: '10000',
      description: 'After an answer sent before the request\'s body arrived in full (401, 413…), longest the rest of the body is read and dropped before the connection closes (see "Early answers" in [the REST API](rest-api.md))',
    }),
    maxBytes: variable({ name: 'HTTP_LINGER_MAX_BYTES', section: 'http', schema: wholeNumber(0, 1024 ** 4, 'bytes'), default: String(128 * 1024 ** 2), description: 'Most bytes read and dropped on one connection after such an answer' }),
    maxConnections: variable({
      name: 'HTTP_LINGER_MAX_CONNECTIONS',
      section: 'http',
      schema: wholeNumber(0, 100_000),
      default: '32',
      description: 'Most connections doing so at once; beyond, the connection closes as soon as the answer is out',
    }),
  },
};

const changes = {
  pollMs: variable({
    name: 'CHANGE_FEED_POLL_MS',
    section: 'changes',
    schema: wholeNumber(10, 60_000, 'ms'),
    default: '100',
    description: 'How often each process reads the change feed for events other processes published (its own are read at once). See [Live changes](live-changes.md#change-events)',
  }),
  sweepIntervalMs: variable({ name: 'OUTBOX_SWEEP_INTERVAL_MS', section: 'changes', schema: wholeNumber(100, 3_600_000, 'ms'), default: '5000', description: 'How often each process publishes events a crashed writer left unpublished' }),
  retentionMs: variable({ name: 'CHANGE_EVENTS_RETENTION_DAYS', section: 'changes', schema: daysInMs(1, 365), default: '7', description: 'How long published change events are kept (once their webhooks are dispatched)' }),
};

const webhooks = {
  allowedPrivateNetworks: variable({
    name: 'WEBHOOK_ALLOWED_PRIVATE_NETWORKS',
    section: 'webhooks',
    schema: networks(),
    default: '',
    unset: 'unset: public addresses only',
    example: '10.20.0.0/16,127.0.0.1',
    description:
      'Addresses and CIDR ranges (`127.0.0.1`, `10.20.0.0/16`, `fd00::/8`) webhook receivers may be in although not public unicast (loopback, private, link-local…). See [Server-side request forgery](live-changes.md#webhooks)',
  }),
  /** Whether endpoint URLs must use https: in production. */
  requireHttps: derived((context) => context.nodeEnv === 'production'),
  attemptTimeoutMs: variable({
    name: 'WEBHOOK_ATTEMPT_TIMEOUT_MS',
    section: 'webhooks',
    schema: wholeNumber(100, 120_000, 'ms'),
    default: '15000',
    description: 'Longest one delivery attempt may take (DNS, connection, answer); then it failed',
  }),
  // Standard Webhooks' schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (eight attempts over 27.6 hours).
  retryScheduleMs: variable({
    name: 'WEBHOOK_RETRY_SCHEDULE_MS',
    section: 'webhooks',
    schema: delays(20, 7 * DAY_MS),
    default: '5000,300000,1800000,7200000,18000000,36000000,36000000',
    description: 'Delays before each retry of a failed delivery, each ±20 % at random; its length is the number of retries. In production it must add up to at least 24 hours',
  }),
  disableAfterMs: variable({
    name: 'WEBHOOK_DISABLE_AFTER_MS',
    section: 'webhooks',
    schema: wholeNumber(0, 90 * DAY_MS, 'ms'),
    default: String(5 * DAY_MS),
    description: 'An endpoint without a successful delivery for this long, failing meanwhile, is disabled (at least 24 hours in production)',
  }),
  sweepIntervalMs: variable({
    name: 'WEBHOOK_SWEEP_INTERVAL_MS',
    section: 'webhooks',
    schema: wholeNumber(10, 3_600_000, 'ms'),
    default: '30000',
    description: "How often each process looks for undispatched events and due deliveries nothing woke it for (other processes' retries, crashed processes' leases, work left before a restart)",
  }),
  concurrency: variable({ name: 'WEBHOOK_CONCURRENCY', section: 'webhooks', schema: wholeNumber(1, 256), default: '16', description: 'Most delivery attempts in flight in one process' }),
  concurrencyPerEndpoint: variable({
    name: 'WEBHOOK_CONCURRENCY_PER_ENDPOINT',
    section: 'webhooks',
    schema: wholeNumber(1, 256),
    default: '4',
    description:
      'Most attempts in flight to one endpoint in one process (so one slow receiver cannot take every slot), counted per endpoint even when several share a host and port (connections are not limited per host: no attempt waits for one); at most `WEBHOOK_CONCURRENCY`',
  }),
  maxEndpoints: variable({ name: 'WEBHOOK_MAX_ENDPOINTS', section: 'webhooks', schema: wholeNumber(1, 10_000), default: '100', description: 'Most webhook endpoints (409 beyond)' }),
  logRetentionMs: variable({ name: 'WEBHOOK_LOG_RETENTION_DAYS', section: 'webhooks', schema: daysInMs(1, 365), default: '30', description: 'How long a delivered or failed delivery stays in the delivery log' }),
};

const subscriptions = {
  maxConnectionsPerSubject: variable({
    name: 'WS_MAX_CONNECTIONS_PER_SUBJECT',
    section: 'subscriptions',
    schema: wholeNumber(1, 100_000),
    default: '20',
    description: 'Most WebSocket connections (GraphQL subscriptions) one token subject may hold in a process; one more is closed with 4429. See [Live changes → subscriptions](live-changes.md#subscriptions)',
  }),
  maxSubscriptionsPerConnection: variable({
    name: 'WS_MAX_SUBSCRIPTIONS_PER_CONNECTION',
    section: 'subscriptions',
    schema: wholeNumber(1, 10_000),
    default: '20',
    description: 'Most subscriptions running at once on one connection; one more is answered `TOO_MANY_REQUESTS`',
  }),
  connectionInitTimeoutMs: variable({
    name: 'WS_CONNECTION_INIT_TIMEOUT_MS',
    section: 'subscriptions',
    schema: wholeNumber(100, 600_000, 'ms'),
    default: '10000',
    description: 'Longest a client may take to send `connection_init` after the WebSocket opens (then 4408)',
  }),
  keepAliveMs: variable({
    name: 'WS_KEEPALIVE_MS',
    section: 'subscriptions',
    schema: wholeNumber(100, 600_000, 'ms'),
    default: '30000',
    description: "Interval of the server's pings; a peer that has not answered one by the next is dropped",
  }),
  idleTimeoutMs: variable({
    name: 'WS_IDLE_TIMEOUT_MS',
    section: 'subscriptions',
    schema: wholeNumber(1000, 86_400_000, 'ms'),
    default: '300000',
    description: 'An authenticated connection without a subscription for this long is closed (1000)',
  }),
  maxBufferedBytes: variable({
    name: 'WS_MAX_BUFFERED_BYTES',
    section: 'subscriptions',
    schema: wholeNumber(1024, GiB, 'bytes'),
    default: String(1024 ** 2),
    description: 'Most bytes waiting to be sent on one socket; a consumer that lets more pile up is closed with 1013',
  }),
  maxQueuedEvents: variable({
    name: 'WS_MAX_QUEUED_EVENTS',
    section: 'subscriptions',
    schema: wholeNumber(1, 100_000),
    default: '100',
    description: 'Most events waiting for one subscription; a subscription further behind closes its connection with 1013',
  }),
  maxMessageBytes: variable({
    name: 'WS_MAX_MESSAGE_BYTES',
    section: 'subscriptions',
    schema: wholeNumber(1024, 64 * 1024 ** 2, 'bytes'),
    default: String(64 * 1024),
    description: 'Largest message a client may send over the WebSocket (1009 beyond)',
  }),
  maxPendingPerAddress: variable({
    name: 'WS_MAX_PENDING_CONNECTIONS_PER_ADDRESS',
    section: 'subscriptions',
    schema: wholeNumber(1, 100_000),
    default: '20',
    description:
      "WebSockets one client address may hold before they are authenticated (no accepted `connection_init` yet); one more upgrade is answered 429. Counted by the peer's address: behind a proxy, all its clients share it, and handshakes last milliseconds",
  }),
};

const paxlst = combined(
  {
    senderId: variable({ name: 'PAXLST_SENDER_ID', section: 'exports', schema: paxlstId(), example: 'BROKER', description: 'UNB sender identifier of PAXLST exports' }),
    recipientId: variable({ name: 'PAXLST_RECIPIENT_ID', section: 'exports', schema: paxlstId(), example: 'AUTHORITY', description: 'UNB recipient identifier of PAXLST exports' }),
    reportingParty: variable({
      name: 'PAXLST_REPORTING_PARTY',
      section: 'exports',
      schema: text({ maxLength: 35 }),
      example: 'Example Broker',
      description: 'The reporting party (NAD+MS) of PAXLST exports; without all three PAXLST settings `format=paxlst` is a 422 naming them',
    }),
  },
  ({ senderId, recipientId, reportingParty }) => (senderId && recipientId && reportingParty ? { senderId, recipientId, reportingParty } : null),
);

function paxlstId() {
  return text({ pattern: /^[A-Z0-9]{1,35}$/, patternText: '1 to 35 upper-case letters and digits (a UNOA interchange identifier)' });
}

const OTLP_URL = text({ accepts: 'an absolute http(s) URL' });

/** The OTEL_* variables the service checks first or defaults (src/config/tracing.ts); the SDK reads them too. */
const tracing = combined(
  {
    endpoint: variable({
      name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
      section: 'tracing',
      schema: OTLP_URL,
      unset: 'unset: no tracing (nothing of OpenTelemetry\'s SDK is loaded)',
      example: 'http://otel-collector:4318',
      description: 'OTLP collector to export traces to, e.g. `http://otel-collector:4318` (`/v1/traces` is added for http). See [Traces](deployment.md#traces)',
    }),
    tracesEndpoint: variable({ name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', section: 'tracing', schema: OTLP_URL, example: 'http://otel-collector:4318/v1/traces', description: 'Where traces go, taken as it is (no path added); wins over `OTEL_EXPORTER_OTLP_ENDPOINT`' }),
    protocol: variable({ name: 'OTEL_EXPORTER_OTLP_PROTOCOL', section: 'tracing', schema: text({ accepts: '`http/protobuf`, `http/json`, `grpc`' }), default: 'http/protobuf', description: 'OTLP transport' }),
    tracesProtocol: variable({
      name: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
      section: 'tracing',
      schema: text({ accepts: '`http/protobuf`, `http/json`, `grpc`' }),
      example: 'http/protobuf',
      description: 'OTLP transport of traces; wins over `OTEL_EXPORTER_OTLP_PROTOCOL`',
    }),
    serviceName: variable({
      name: 'OTEL_SERVICE_NAME',
      section: 'tracing',
      schema: text(),
      unset: '`broker-flight-gateway`, unless `OTEL_RESOURCE_ATTRIBUTES` names the service',
      example: 'broker-flight-gateway',
      description: '`service.name` of the spans',
    }),
    resourceAttributes: variable({ name: 'OTEL_RESOURCE_ATTRIBUTES', section: 'tracing', schema: text(), example: 'deployment.environment=production', description: 'Resource attributes of the spans (`key=value,…`), read by the SDK; the service only looks for `service.name`' }),
    sdkDisabled: variable({ name: 'OTEL_SDK_DISABLED', section: 'tracing', schema: text(), example: 'true', description: '`true` turns tracing off' }),
    tracesExporter: variable({ name: 'OTEL_TRACES_EXPORTER', section: 'tracing', schema: text(), example: 'none', description: '`none` turns tracing off' }),
  },
  tracingFrom,
);

export const CONFIG = {
  nodeEnv: variable({ name: 'NODE_ENV', section: 'server', schema: oneOf(NODE_ENVS), default: 'development', description: 'What the process is: production sets stricter defaults and refuses unsafe settings' }),
  port: variable({ name: 'PORT', section: 'server', schema: wholeNumber(0, 65535), default: '4000', description: 'TCP port the HTTP server listens on' }),
  host: variable({ name: 'HOST', section: 'server', schema: text(), default: '0.0.0.0', description: 'Interface the HTTP server binds to' }),
  mongodbUri: variable({
    name: 'MONGODB_URI',
    section: 'database',
    schema: mongodbUri(),
    unset: 'unset: embedded engine',
    example: 'mongodb://user:pass@db1,db2,db3/broker?replicaSet=rs0',
    description:
      'URI of a real MongoDB (replica set or managed cluster recommended; a standalone works, see "Replica set or standalone" in [operations.md](operations.md)). Required with `NODE_ENV=production`: the service refuses to start without it rather than keep production data in memory',
  }),
  publicHost: variable({
    name: 'PUBLIC_HOST',
    section: 'server',
    schema: hostName(),
    default: { compute: () => os.hostname(), documented: "the machine's host name" },
    example: 'broker.example.com',
    description: "Host name shown in timeline entries' `url` (no scheme)",
  }),
  manifestOperator: variable({
    name: 'MANIFEST_OPERATOR',
    section: 'exports',
    schema: text({ maxLength: 70, why: "the operator's name as printed on manifests" }),
    whenUnset: null,
    unset: 'none (printed as "not configured")',
    example: 'Example Air Charter',
    description: "The aircraft operator's name printed on PDF passenger manifests",
  }),
  exportLinkSecret: variable({
    name: 'EXPORT_LINK_SECRET',
    section: 'exports',
    schema: text({ minBytes: 32 }),
    whenUnset: null,
    unset: 'derived from `JWT_SECRET`',
    example: 'change-me-to-at-least-32-random-bytes',
    description: 'Key of the signed download links of `passengerListDownloadUrl`; needed with `JWT_PUBLIC_KEY`/`JWKS_URL`, and shared by every instance',
  }),
  /** Sender, recipient and reporting party of PAXLST exports; null unless all three are set. */
  paxlst,
  publicUrl: variable({
    name: 'PUBLIC_URL',
    section: 'server',
    schema: baseUrl(),
    unset: "unset: the request's validated scheme and `Host`",
    example: 'https://broker.example.com',
    description: 'Absolute base URL of the service as clients reach it, e.g. `https://broker.example.com` (a path prefix is allowed), for links in answers',
  }),
  trustProxy: variable({
    name: 'TRUST_PROXY',
    section: 'server',
    schema: trustedProxies(),
    default: 'false',
    example: 'loopback',
    description: "Proxies allowed to report the client's address and scheme (`X-Forwarded-For`/`-Proto`, Express's `trust proxy`): none, a hop count, or addresses, CIDR ranges and names",
  }),
  timezone: variable({
    name: 'TIMEZONE',
    section: 'server',
    schema: timeZone(),
    default: 'UTC',
    example: 'Europe/Rome',
    description: "IANA zone of timeline requests that name none (`timeZone`): range bounds without offset are read in it, entries' `start`/`end` shown in it",
  }),
  logLevel: variable({ name: 'LOG_LEVEL', section: 'logs', schema: oneOf(LOG_LEVELS), default: { test: 'silent', otherwise: 'info' }, description: 'Least severe level logged' }),
  logFormat: variable({
    name: 'LOG_FORMAT',
    section: 'logs',
    schema: oneOf(LOG_FORMATS),
    default: 'auto',
    description:
      '`json` (one object a line, for log shippers), `pretty` (readable lines), or `auto`: pretty in development when stdout is a terminal, JSON otherwise. Start-up refusals (a bad variable, a missing key, a port in use) are one `fatal` entry in the same format: one line in JSON; `pretty` may put its details on the lines after',
  }),
  metrics: {
    enabled: variable({
      name: 'METRICS_ENABLED',
      section: 'logs',
      schema: flag(),
      default: 'true',
      description: 'Record Prometheus metrics and serve them at `GET /metrics` (token with `metrics:read`); `false` records nothing and has no route',
    }),
    port: variable({ name: 'METRICS_PORT', section: 'logs', schema: wholeNumber(1, 65535), example: '9464', description: 'Also serve `GET /metrics` on this port, without a token (for a scraper on a private network)' }),
  },
  introspection: variable({ name: 'GRAPHQL_INTROSPECTION', section: 'requests', schema: flag(), default: { production: 'false', otherwise: 'true' }, description: 'GraphQL introspection (and so Sandbox) on or off' }),
  corsOrigins: variable({
    name: 'CORS_ORIGINS',
    section: 'server',
    schema: origins(),
    default: '',
    unset: 'unset: no CORS headers',
    example: 'https://ops.example.com,http://localhost:5173',
    description: 'Browser origins allowed to call `/graphql` and the REST facade, e.g. `https://ops.example.com`; `*` for any (no cookies are used)',
  }),
  auth,
  limits,
  shutdownTimeoutMs: variable({
    name: 'SHUTDOWN_TIMEOUT_MS',
    section: 'server',
    schema: wholeNumber(0, 600_000, 'ms'),
    default: '10000',
    description: 'Longest the drain after SIGTERM may take, grace included; what is still running then is cut. See [Shutdown](operations.md#shutdown)',
  }),
  shutdownGraceMs: variable({
    name: 'SHUTDOWN_GRACE_MS',
    section: 'server',
    schema: wholeNumber(0, 600_000, 'ms'),
    // A production process keeps accepting long enough for a proxy's health checks to notice; elsewhere briefly, so Ctrl-C is quick.
    default: {
      compute: (context) => String(Math.min(context.nodeEnv === 'production' ? 5000 : 1000, context.value('SHUTDOWN_TIMEOUT_MS') as number)),
      documented: '`5000` in production, else `1000` (at most `SHUTDOWN_TIMEOUT_MS`)',
    },
    example: '1000',
    description: 'How long after SIGTERM the process still accepts connections (answering each request with `Connection: close`, `/readyz` already 503), so a proxy stops sending before the port closes; at most `SHUTDOWN_TIMEOUT_MS`',
  }),
  database,
  http,
  changes,
  webhooks,
  subscriptions,
  passengerDefaultPhoneRegion: variable({
    name: 'PASSENGER_DEFAULT_PHONE_REGION',
    section: 'passengers',
    schema: phoneRegion(),
    example: 'IT',
    description:
      "ISO 3166-1 alpha-2 code (e.g. `IT`) in which an uploaded phone number without a country code is read when it is valid in none of the passenger's own countries, with a warning; unset: such a number is a problem. An upload's `defaultPhoneRegion` overrides it ([passenger-spreadsheet.md](passenger-spreadsheet.md))",
  }),
  /** Unset: no tracing at all (no SDK loaded, nothing patched). */
  tracing,
};
