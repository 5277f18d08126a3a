import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt } from 'jose';
import request from 'supertest';
import { ALL_SCOPES } from '../../src/auth';
import { parseTtl } from '../../src/auth/ttl';
import { runTokenCli, type TokenCliOutput } from '../../scripts/token';
import { ENDPOINTS, expectRejected, GRAPHQL, insufficientScope, nowSeconds, REST } from '../helpers/auth-requests';
import { startTestApp, TEST_SECRET } from '../helpers/test-app';

const baseEnv = { PUBLIC_HOST: 'broker.example.test', NODE_ENV: 'development' };

async function run(argv: string[], env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const output: TokenCliOutput = { stdout: (text) => out.push(text), stderr: (text) => err.push(text) };
  const code = await runTokenCli(argv, { ...baseEnv, ...env }, output);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('npm run token', () => {
  it('mints, with JWT_SECRET, a token the verifier accepts with the requested scopes and lifetime', async () => {
    const env = { JWT_SECRET: TEST_SECRET, JWT_ISSUER: 'https://broker.example.test/', JWT_AUDIENCE: 'broker-api' };
    const { code, stdout, stderr } = await run(['--sub', 'ops-bot', '--scope', 'timeline:read passengers:read', '--ttl', '30m'], env);
    expect(code).toBe(0);
    expect(stderr).toMatch(/sub=ops-bot/);

    const token = stdout.trim();
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ sub: 'ops-bot', iss: env.JWT_ISSUER, aud: env.JWT_AUDIENCE });
    expect((claims.exp as number) - (claims.iat as number)).toBe(1800);
    expect(Math.abs((claims.exp as number) - (nowSeconds() + 1800))).toBeLessThanOrEqual(2);

    // The service started with the same environment accepts it, within its scopes only.
    const testApp = await startTestApp('auth_token_cli_secret', env);
    try {
      for (const endpoint of ENDPOINTS) endpoint.expectAccepted(await endpoint.send(testApp.app, { authorization: `Bearer ${token}` }));
      const mutation = await request(testApp.app).post('/graphql').set('Authorization', `Bearer ${token}`).send({ query: 'mutation { deleteFlight(id: 1) }' });
      expectRejected(GRAPHQL, mutation, insufficientScope('flights:write'), token);
    } finally {
      await testApp.close();
    }
  });

  it('mints with JWT_PRIVATE_KEY, choosing ES256 from the key type', async () => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const publicKey = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    // Environment variables usually carry PEM newlines as literal \n.
    const privateKey = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().replace(/\n/g, '\\n');
    const { code, stdout } = await run(['--sub', 'ops', '--scope', 'flights:write', '--ttl', '7d', '--jti', 'run-42'], {
      JWT_PUBLIC_KEY: publicKey,
      JWT_PRIVATE_KEY: privateKey,
    });
    expect(code).toBe(0);
    const token = stdout.trim();
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toMatchObject({ alg: 'ES256' });
    const claims = decodeJwt(token);
    expect(claims.jti).toBe('run-42');
    expect((claims.exp as number) - (claims.iat as number)).toBe(7 * 86_400);

    // The service verifies with the public key (the private key is there because startTestApp mints
    // a token as it starts): the signature passes, the scope does not.
    const testApp = await startTestApp('auth_token_cli_es256', { JWT_SECRET: '', JWT_PUBLIC_KEY: publicKey, JWT_PRIVATE_KEY: privateKey });
    try {
      expectRejected(REST, await REST.send(testApp.app, { authorization: `Bearer ${token}` }), insufficientScope('timeline:read'), token);
    } finally {
      await testApp.close();
    }
  });

  it('grants every scope for one hour when only --sub is given', async () => {
    const { code, stdout } = await run(['--sub', 'alice'], { JWT_SECRET: TEST_SECRET });
    expect(code).toBe(0);
    const claims = decodeJwt(stdout.trim());
    expect(claims.scope).toBe(ALL_SCOPES.join(' '));
    expect(ALL_SCOPES).toEqual(['timeline:read', 'passengers:read', 'passengers:write', 'flights:write', 'webhooks:manage', 'metrics:read']);
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
  });

  it.each([
    [['--scope', 'timeline:read'], /--sub <name> is required/],
    [['--sub', 'a', '--ttl', '5x'], /--ttl "5x" is not a lifetime/],
    [['--sub', 'a', '--ttl', '0h'], /--ttl "0h"/],
    [['--sub', 'a', '--scope', 'timeline:read admin'], /unknown scope admin/],
    [['--sub', 'a', '--scope', ' '], /at least one scope/],
    [['--sub', 'a', '--colour', 'red'], /Unknown option '--colour'/],
    [['--sub', 'a', 'stray'], /positional/],
    [['--sub'], /argument missing|--sub/],
  ])('exits 2 with a clear message and the usage for %j', async (argv, message) => {
    const { code, stdout, stderr } = await run(argv, { JWT_SECRET: TEST_SECRET });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr).toContain('Usage: npm run token');
  });

  it('exits 1 naming the variables when there is nothing to sign with', async () => {
    const { code, stdout, stderr } = await run(['--sub', 'alice'], {});
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/JWT_SECRET or JWT_PRIVATE_KEY must be set/);
  });
});

describe('token lifetimes', () => {
  it.each([
    ['30m', 1800],
    ['1h', 3600],
    ['12h', 43_200],
    ['7d', 604_800],
    ['45s', 45],
  ])('reads %s as %i seconds', (text, seconds) => expect(parseTtl(text)).toBe(seconds));

  it.each(['', '1', 'h', '1.5h', '-1h', '1w', '0m', '366d', '1h30m'])('rejects %j', (text) => expect(parseTtl(text)).toBeUndefined());
});
