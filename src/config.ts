import os from 'node:os';
import { IANAZone } from 'luxon';

export type NodeEnv = 'development' | 'production' | 'test';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

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
}

/** Limits on client input; each one answers with a 413 or 422 naming the limit. */
export interface LimitsConfig {
  /** Largest accepted spreadsheet upload, in bytes. */
  uploadMaxBytes: number;
  /** Most data rows a passenger sheet may hold. */
  uploadMaxRows: number;
  /** Most columns a passenger sheet may hold. */
  uploadMaxColumns: number;
  /** Largest total uncompressed size of the parts of an .xlsx (zip bomb guard), in bytes. */
  uploadMaxUncompressedBytes: number;
  /** Largest JSON body, in bytes. */
  jsonMaxBytes: number;
  /** Deepest GraphQL selection accepted. */
  graphqlMaxDepth: number;
  /** Highest estimated GraphQL query cost accepted. */
  graphqlMaxCost: number;
  /** Requests one client (IP address) may make per minute to /graphql and the REST facade; 0 turns the limit off. */
  rateLimitPerMinute: number;
}

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
  /** IANA time zone in which `YYYY-MM-DD` range bounds are read. */
  timezone: string;
  logLevel: LogLevel;
  /** Whether GraphQL introspection (and so Sandbox) is on. */
  introspection: boolean;
  /** Browser origins allowed to call the API cross-origin (e.g. a FullCalendar front end); empty: none. */
  corsOrigins: string[];
  auth: AuthConfig;
  limits: LimitsConfig;
  /** Milliseconds given to in-flight requests on SIGTERM before the process exits anyway. */
  shutdownTimeoutMs: number;
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
const NODE_ENVS: NodeEnv[] = ['development', 'production', 'test'];
const HOST_NAME = /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*(:\d{1,5})?$/;

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

  const auth: AuthConfig = {
    jwtSecret: read('JWT_SECRET'),
    jwtPublicKey: pem(read('JWT_PUBLIC_KEY')),
    jwksUrl: read('JWKS_URL'),
    jwtPrivateKey: pem(read('JWT_PRIVATE_KEY')),
    issuer: read('JWT_ISSUER'),
    audience: read('JWT_AUDIENCE'),
    clockToleranceSeconds: integer(env, 'JWT_CLOCK_TOLERANCE_SECONDS', 30, 0, 600),
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
    timezone,
    logLevel: oneOf(read('LOG_LEVEL') ?? (nodeEnv === 'test' ? 'silent' : 'info'), LOG_LEVELS, 'LOG_LEVEL'),
    introspection: boolean(env, 'GRAPHQL_INTROSPECTION', nodeEnv !== 'production'),
    corsOrigins: origins(read('CORS_ORIGINS')),
    auth,
    limits: {
      uploadMaxBytes: integer(env, 'UPLOAD_MAX_BYTES', 5 * 1024 * 1024, 1024, 1024 ** 3),
      uploadMaxRows: integer(env, 'UPLOAD_MAX_ROWS', 2000, 1, 1_000_000),
      uploadMaxColumns: integer(env, 'UPLOAD_MAX_COLUMNS', 64, 1, 16384),
      uploadMaxUncompressedBytes: integer(env, 'UPLOAD_MAX_UNCOMPRESSED_BYTES', 50 * 1024 * 1024, 1024, 1024 ** 3),
      jsonMaxBytes: integer(env, 'JSON_MAX_BYTES', 1024 * 1024, 1024, 1024 ** 3),
      graphqlMaxDepth: integer(env, 'GRAPHQL_MAX_DEPTH', 10, 2, 100),
      graphqlMaxCost: integer(env, 'GRAPHQL_MAX_COST', 50_000, 10, 10_000_000),
      rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000),
    },
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
  };
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
