/**
 * Mints a bearer token for this service: `npm run token -- --sub alice --scope "timeline:read" --ttl 1h`.
 * Signs with JWT_SECRET (HS256) or JWT_PRIVATE_KEY (PEM PKCS#8; RS256, ES256 or EdDSA from the key
 * type) and adds JWT_ISSUER / JWT_AUDIENCE when set. The token alone goes to stdout, so
 * `TOKEN=$(npm run --silent token -- --sub alice)` works; everything else goes to stderr.
 */
import { parseArgs } from 'node:util';
import { ALL_SCOPES, isKnownScope } from '../src/auth/scopes';
import { mintToken } from '../src/auth/token-issuer';
import { parseTtl } from '../src/auth/ttl';
import { ConfigError, loadConfig } from '../src/config';

export const USAGE = [
  'Usage: npm run token -- --sub <name> [--scope "<scopes>"] [--ttl <duration>] [--jti <id>]',
  '',
  '  --sub    subject the token stands for (required)',
  `  --scope  space- or comma-separated scopes; default all: ${ALL_SCOPES.join(' ')}`,
  '  --ttl    lifetime: a number and s, m, h or d, e.g. 30m, 1h, 12h, 7d (default 1h, at most 365d)',
  '  --jti    token id (default a random UUID)',
  '',
  'Signs with JWT_SECRET or JWT_PRIVATE_KEY; honours JWT_ISSUER and JWT_AUDIENCE.',
].join('\n');

/** Where the command writes; tests capture it. */
export interface TokenCliOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

interface TokenRequest {
  sub: string;
  scope: string[];
  ttlSeconds: number;
  jti?: string;
}

class UsageError extends Error {}

const consoleOutput: TokenCliOutput = {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
};

/** Runs the command; resolves to the exit code (0 ok, 1 configuration problem, 2 bad flags). */
export async function runTokenCli(
  argv: string[],
  env: Record<string, string | undefined>,
  output: TokenCliOutput = consoleOutput,
): Promise<number> {
  let request: TokenRequest | 'help';
  try {
    request = parseTokenArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.stderr(`token: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (request === 'help') {
    output.stdout(USAGE);
    return 0;
  }

  try {
    const { auth } = loadConfig(env);
    const token = await mintToken(auth, request);
    output.stdout(token);
    const expires = new Date(Date.now() + request.ttlSeconds * 1000).toISOString();
    output.stderr(`token: sub=${request.sub} scope="${request.scope.join(' ')}" expires=${expires}`);
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    output.stderr(`token: ${error.message}`);
    return 1;
  }
}

function parseTokenArgs(argv: string[]): TokenRequest | 'help' {
  let values: { sub?: string; scope?: string; ttl?: string; jti?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        sub: { type: 'string' },
        scope: { type: 'string' },
        ttl: { type: 'string' },
        jti: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return 'help';

  const sub = values.sub?.trim();
  if (!sub) throw new UsageError('--sub <name> is required');

  const scope = values.scope === undefined ? [...ALL_SCOPES] : values.scope.split(/[\s,]+/).filter(Boolean);
  if (scope.length === 0) throw new UsageError('--scope needs at least one scope');
  const unknown = scope.filter((name) => !isKnownScope(name));
  if (unknown.length > 0) {
    throw new UsageError(`unknown scope ${unknown.join(', ')}; known scopes: ${ALL_SCOPES.join(', ')}`);
  }

  const ttlText = values.ttl ?? '1h';
  const ttlSeconds = parseTtl(ttlText);
  if (ttlSeconds === undefined) {
    throw new UsageError(`--ttl "${ttlText}" is not a lifetime such as 30m, 1h, 12h or 7d (at most 365d)`);
  }

  const jti = values.jti?.trim();
  if (values.jti !== undefined && !jti) throw new UsageError('--jti cannot be empty');

  return { sub, scope: [...new Set(scope)], ttlSeconds, ...(jti ? { jti } : {}) };
}

if (require.main === module) {
  runTokenCli(process.argv.slice(2), process.env).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
