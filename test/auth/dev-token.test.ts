import { decodeJwt } from 'jose';
import { describeDevToken, prepareDevelopmentAuth } from '../../src/auth/dev-token';
import { ALL_SCOPES } from '../../src/auth/scopes';
import { createTokenVerifier } from '../../src/auth/token-verifier';
import { ConfigError, loadConfig } from '../../src/config';
import { ENDPOINTS, expectRejected, invalidToken } from '../helpers/auth-requests';
import { startTestApp, TEST_SECRET } from '../helpers/test-app';

const baseEnv = { PUBLIC_HOST: 'broker.example.test', LOG_LEVEL: 'silent' };

describe('start-up without a configured key', () => {
  it('fails in production with a message naming JWT_SECRET, JWT_PUBLIC_KEY and JWKS_URL', async () => {
    const config = loadConfig({ ...baseEnv, NODE_ENV: 'production' });
    const failure = prepareDevelopmentAuth(config);
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    await expect(failure).rejects.toThrow(/JWT_SECRET.*JWT_PUBLIC_KEY.*JWKS_URL.*NODE_ENV=production/);
  });

  it('refuses to build a verifier with no key source', () => {
    const { auth } = loadConfig({ ...baseEnv, NODE_ENV: 'production' });
    expect(() => createTokenVerifier(auth)).toThrow(ConfigError);
    expect(() => createTokenVerifier(auth)).toThrow(/JWT_SECRET, JWT_PUBLIC_KEY or JWKS_URL must be set/);
  });

  it.each(['development', 'test'])('in %s, generates a secret and mints a 12-hour token with every scope', async (nodeEnv) => {
    const config = loadConfig({ ...baseEnv, NODE_ENV: nodeEnv });
    const { config: prepared, devToken } = await prepareDevelopmentAuth(config);

    expect(prepared.auth.jwtSecret).toBeDefined();
    expect(Buffer.byteLength(prepared.auth.jwtSecret as string)).toBeGreaterThanOrEqual(32);
    expect(config.auth.jwtSecret).toBeUndefined();
    expect(devToken).toBeDefined();

    const claims = decodeJwt(devToken as string);
    expect(claims.sub).toBe('dev');
    expect(claims.scope).toBe(ALL_SCOPES.join(' '));
    expect((claims.exp as number) - (claims.iat as number)).toBe(12 * 3600);
  });

  it('serves the development token, and only that process’s, on REST and GraphQL', async () => {
    const config = loadConfig({ ...baseEnv, NODE_ENV: 'development' });
    const first = await prepareDevelopmentAuth(config);
    const second = await prepareDevelopmentAuth(config);
    expect(first.config.auth.jwtSecret).not.toBe(second.config.auth.jwtSecret);

    // The app as main.ts starts it after `prepareDevelopmentAuth`: verifying with the generated secret.
    const testApp = await startTestApp('auth_dev_token', { JWT_SECRET: second.config.auth.jwtSecret as string });
    try {
      for (const endpoint of ENDPOINTS) {
        endpoint.expectAccepted(await endpoint.send(testApp.app, { authorization: `Bearer ${second.devToken}` }));
        // A new secret for every process: the previous process's development token stops working.
        const stale = await endpoint.send(testApp.app, { authorization: `Bearer ${first.devToken}` });
        expectRejected(endpoint, stale, invalidToken('signature verification failed'), first.devToken as string);
      }
    } finally {
      await testApp.close();
    }
  });

  it('leaves a configuration with a key untouched and mints nothing', async () => {
    const config = loadConfig({ ...baseEnv, NODE_ENV: 'production', JWT_SECRET: TEST_SECRET });
    const prepared = await prepareDevelopmentAuth(config);
    expect(prepared.config).toBe(config);
    expect(prepared.devToken).toBeUndefined();
  });
});

describe('the development token banner', () => {
  const token = 'aaaa.bbbb.cccc';
  const banner = describeDevToken(token, 'http://localhost:4000/', new Date('2026-11-21T10:00:00Z'));

  it('shows the token and a curl call to the calendar timeline', () => {
    expect(banner).toContain(`  ${token}\n`);
    expect(banner).toContain(`curl -H "Authorization: Bearer ${token}"`);
    expect(banner).toContain('"http://localhost:4000/api/broker/v0/calendar/timeline/event?start=2026-11-21&end=2026-11-28"');
  });

  it('explains where the header goes in Apollo Sandbox', () => {
    expect(banner).toContain('Apollo Sandbox (http://localhost:4000/graphql): Connection settings → Headers');
    expect(banner).toContain(`Authorization: Bearer ${token}`);
  });
});
