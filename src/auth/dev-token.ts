import { randomBytes } from 'node:crypto';
import type { Config } from '../config';
import { configuredKeySources, missingKeySourceError } from './keys';
import { ALL_SCOPES } from './scopes';
import { mintToken } from './token-issuer';

export const DEV_TOKEN_TTL_SECONDS = 12 * 3600;
export const DEV_TOKEN_SUBJECT = 'dev';

/**
 * Start-up step before `createTokenVerifier`. With a key source configured the config is returned
 * unchanged. Without one, production refuses to start (ConfigError naming the three variables),
 * while development and test get a random per-process HS256 secret and one token with every scope
 * for 12 hours, so the service is usable at once. The secret dies with the process, and so do its tokens.
 */
export async function prepareDevelopmentAuth(config: Config): Promise<{ config: Config; devToken?: string }> {
  if (configuredKeySources(config.auth).length > 0) return { config };
  if (config.nodeEnv === 'production') throw missingKeySourceError('when NODE_ENV=production');

  const jwtSecret = randomBytes(32).toString('base64url');
  const devConfig: Config = { ...config, auth: { ...config.auth, jwtSecret } };
  const devToken = await mintToken(devConfig.auth, {
    sub: DEV_TOKEN_SUBJECT,
    scope: [...ALL_SCOPES],
    ttlSeconds: DEV_TOKEN_TTL_SECONDS,
  });
  return { config: devConfig, devToken };
}

/** The start-up banner: the token, a curl call that works as printed, and how to use it in Sandbox. */
export function describeDevToken(token: string, baseUrl: string, today: Date = new Date()): string {
  const base = baseUrl.replace(/\/+$/, '');
  const start = today.toISOString().slice(0, 10);
  const end = new Date(today.getTime() + 7 * 86_400_000).toISOString().slice(0, 10);
  return [
    'No JWT_SECRET, JWT_PUBLIC_KEY or JWKS_URL set: using a random secret for this process only.',
    `Development token (sub "${DEV_TOKEN_SUBJECT}", scopes ${ALL_SCOPES.join(' ')}, valid 12 hours):`,
    '',
    `  ${token}`,
    '',
    'For the examples of README.md and docs/, in your shell:',
    `  export TOKEN=${token}`,
    '',
    'Try it:',
    `  curl -H "Authorization: Bearer ${token}" \\`,
    `    "${base}/api/broker/v0/calendar/timeline/event?start=${start}&end=${end}"`,
    '',
    `Apollo Sandbox (${base}/graphql): Connection settings → Headers → add`,
    `  Authorization: Bearer ${token}`,
    '',
    'Set JWT_SECRET to keep tokens valid across restarts and to mint others with',
    '  npm run token -- --sub <name> --scope "timeline:read passengers:read" --ttl 1h',
  ].join('\n');
}
