import type { JWTPayload } from 'jose';
import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { listen } from '../clients/listening-app';
import {
  authenticationRequired,
  ENDPOINTS,
  GRAPHQL,
  REST,
  expectRejected,
  insufficientScope,
  invalidRequest,
  invalidToken,
  nowSeconds,
  secretBytes,
  signToken,
  unsignedToken,
  withPayload,
  type Credentials,
  type Rejection,
} from '../helpers/auth-requests';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/test-app';

const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'broker-api';

/** Claims of a token the app accepts for the timeline: issuer, audience, one hour left, timeline:read. */
function claims(overrides: JWTPayload = {}): JWTPayload {
  const now = nowSeconds();
  return { sub: 'alice', scope: 'timeline:read', jti: 'token-1', iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + 3600, ...overrides };
}
const hs256 = (overrides: JWTPayload = {}) => signToken(claims(overrides), secretBytes(TEST_SECRET));
const NOT_COMPACT = 'the token is not a JWT in compact form (three base64url parts without padding)';

/** The HS256 signature's last character carries 2 spare bits: flipping one spells the same bytes. */
function respellLastCharacter(token: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(token.at(-1)!);
  const respelled = `${token.slice(0, -1)}${alphabet[last ^ 1]}`;
  const signature = (jwt: string) => Buffer.from(jwt.slice(jwt.lastIndexOf('.') + 1), 'base64url');
  expect(signature(respelled).equals(signature(token))).toBe(true);
  return respelled;
}
const bearer = async (token: string | Promise<string>): Promise<Credentials> => ({ authorization: `Bearer ${await token}` });

interface RejectionCase {
  name: string;
  credentials: () => Promise<Credentials>;
  expected: Rejection;
}

/** Every way a request to a protected operation must be refused, with the exact answer. */
const REJECTIONS: RejectionCase[] = [
  { name: 'no Authorization header', credentials: async () => ({}), expected: authenticationRequired() },
  {
    name: 'another scheme (Basic)',
    credentials: async () => ({ authorization: 'Basic YWxpY2U6c2VjcmV0' }),
    expected: authenticationRequired('Unsupported authorization scheme: send Authorization: Bearer <token>'),
  },
  { name: 'an empty token', credentials: async () => ({ authorization: 'Bearer' }), expected: invalidRequest('the Bearer token is empty') },
  { name: 'an empty token after spaces', credentials: async () => ({ authorization: 'Bearer    ' }), expected: invalidRequest('the Bearer token is empty') },
  {
    name: 'two tokens',
    credentials: () => hs256().then((token) => ({ authorization: `Bearer ${token} ${token}` })),
    expected: invalidRequest('expected exactly one token after Bearer'),
  },
  {
    name: 'characters outside b64token',
    credentials: async () => ({ authorization: 'Bearer aaa"bbb\\ccc' }),
    expected: invalidRequest('the token contains characters a bearer token cannot have'),
  },
  { name: 'garbage', credentials: () => bearer('not-a-jwt-at-all'), expected: invalidToken(NOT_COMPACT) },
  { name: 'a valid token with base64 padding after its signature', credentials: () => bearer(hs256().then((token) => `${token}=`)), expected: invalidToken(NOT_COMPACT) },
  {
    name: 'a valid token whose signature ends in another spelling of the same bytes',
    credentials: () => bearer(hs256().then(respellLastCharacter)),
    expected: invalidToken('the signature is not in canonical base64url'),
  },
  {
    name: 'exp of 1e300 (a token that never expires)',
    credentials: () => bearer(hs256({ exp: 1e300 })),
    expected: invalidToken('the token lives longer than the accepted maximum of 31536000 seconds (exp)'),
  },
  {
    name: 'exp two years ahead',
    credentials: () => bearer(hs256({ exp: nowSeconds() + 2 * 366 * 86_400 })),
    expected: invalidToken('the token lives longer than the accepted maximum of 31536000 seconds (exp)'),
  },
  {
    name: 'three segments that are not JSON',
    credentials: () => bearer('bm90LWpzb24.bm90LWpzb24.c2lnbmF0dXJl'),
    expected: invalidToken('the token is not a well-formed signed JWT'),
  },
  { name: 'alg: none', credentials: () => bearer(unsignedToken(claims())), expected: invalidToken('the token algorithm is not accepted; expected HS256') },
  {
    name: 'HS512 with the right secret (the algorithm is fixed by configuration)',
    credentials: () => bearer(signToken(claims(), secretBytes(TEST_SECRET), { alg: 'HS512' })),
    expected: invalidToken('the token algorithm is not accepted; expected HS256'),
  },
  {
    name: 'a token signed with another secret',
    credentials: () => bearer(signToken(claims(), secretBytes('another-secret-that-is-32-bytes-long!!'))),
    expected: invalidToken('signature verification failed'),
  },
  {
    name: 'a tampered payload (scopes added, subject changed)',
    credentials: () => bearer(hs256().then((token) => withPayload(token, claims({ sub: 'mallory', scope: 'timeline:read flights:write' })))),
    expected: invalidToken('signature verification failed'),
  },
  { name: 'an expired token', credentials: () => bearer(hs256({ exp: nowSeconds() - 120 })), expected: invalidToken('the token has expired (exp)') },
  { name: 'a token without exp', credentials: () => bearer(hs256({ exp: undefined })), expected: invalidToken('the token has no exp claim') },
  { name: 'nbf in the future', credentials: () => bearer(hs256({ nbf: nowSeconds() + 300 })), expected: invalidToken('the token is not valid yet (nbf)') },
  { name: 'a wrong issuer', credentials: () => bearer(hs256({ iss: 'https://evil.example.test/' })), expected: invalidToken('unexpected issuer (iss)') },
  { name: 'no issuer', credentials: () => bearer(hs256({ iss: undefined })), expected: invalidToken('the token has no iss claim') },
  { name: 'a wrong audience', credentials: () => bearer(hs256({ aud: 'another-api' })), expected: invalidToken('unexpected audience (aud)') },
  { name: 'no sub', credentials: () => bearer(hs256({ sub: undefined })), expected: invalidToken('the token has no sub claim') },
  {
    name: 'a scope claim that is not a string',
    credentials: () => bearer(hs256({ scope: ['timeline:read'] })),
    expected: invalidToken('the scope claim must be a space-separated string'),
  },
  {
    name: 'an scp claim that is neither a string nor strings',
    credentials: () => bearer(hs256({ scope: undefined, scp: [42] })),
    expected: invalidToken('the scp claim must be a string or an array of strings'),
  },
  { name: 'a missing scope', credentials: () => bearer(hs256({ scope: 'passengers:read' })), expected: insufficientScope('timeline:read') },
  { name: 'no scope claim at all', credentials: () => bearer(hs256({ scope: undefined })), expected: insufficientScope('timeline:read') },
  {
    name: 'scopes that only look like the one needed',
    credentials: () => bearer(hs256({ scope: 'timeline:readonly timeline TIMELINE:READ' })),
    expected: insufficientScope('timeline:read'),
  },
  // RFC 6749 §3.3: scopes are separated by spaces (%x20) and nothing else.
  { name: 'scopes separated by a no-break space (U+00A0)', credentials: () => bearer(hs256({ scope: 'x\u00a0timeline:read' })), expected: insufficientScope('timeline:read') },
  { name: 'scopes separated by a tab or a line break', credentials: () => bearer(hs256({ scope: 'x\ttimeline:read passengers:read\ntimeline:read' })), expected: insufficientScope('timeline:read') },
  { name: 'scopes in an scp string separated by an em space (U+2003)', credentials: () => bearer(hs256({ scope: undefined, scp: 'x\u2003timeline:read' })), expected: insufficientScope('timeline:read') },
  { name: 'an scp array item holding two scopes apart by a no-break space', credentials: () => bearer(hs256({ scope: undefined, scp: ['x\u00a0timeline:read'] })), expected: insufficientScope('timeline:read') },
  {
    name: 'a valid token in a cookie only',
    credentials: () => hs256().then((token) => ({ cookie: `access_token=${token}; token=${token}` })),
    expected: authenticationRequired(),
  },
];

/** Requests that must get through: the scheme's case, clock tolerance, audience lists, `scp`. */
const ACCEPTED: Array<{ name: string; credentials: () => Promise<Credentials> }> = [
  { name: 'a token minted by the service (mintToken)', credentials: async () => bearer(testApp.token(['timeline:read'])) },
  { name: 'the scheme in lower case (bearer)', credentials: () => hs256().then((token) => ({ authorization: `bearer ${token}` })) },
  { name: 'the scheme in upper case (BEARER)', credentials: () => hs256().then((token) => ({ authorization: `BEARER ${token}` })) },
  { name: 'a token expired by less than the 30 s clock tolerance', credentials: () => bearer(hs256({ exp: nowSeconds() - 10 })) },
  { name: 'nbf within the clock tolerance', credentials: () => bearer(hs256({ nbf: nowSeconds() + 10 })) },
  { name: 'the audience inside an array', credentials: () => bearer(hs256({ aud: ['another-api', AUDIENCE] })) },
  { name: 'scopes in an scp array (Okta)', credentials: () => bearer(hs256({ scope: undefined, scp: ['passengers:read', 'timeline:read'] })) },
  { name: 'scopes in an scp string (Entra ID)', credentials: () => bearer(hs256({ scope: undefined, scp: 'passengers:read timeline:read' })) },
  { name: 'scopes apart by several spaces, with spaces around', credentials: () => bearer(hs256({ scope: ' passengers:read  timeline:read ' })) },
  { name: 'a token without jti', credentials: () => bearer(hs256({ jti: undefined })) },
];

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp('auth_bearer', { JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE });
});
afterAll(() => testApp.close());

describe.each(ENDPOINTS)('bearer tokens on $name (HS256 secret, issuer and audience configured)', (endpoint) => {
  it.each(REJECTIONS)('refuses $name', async ({ credentials, expected }) => {
    const presented = await credentials();
    const res = await endpoint.send(testApp.app, presented);
    const credential = presented.authorization?.replace(/^\S+\s*/, '') ?? presented.query?.access_token ?? presented.cookie ?? '';
    expectRejected(endpoint, res, expected, credential);
  });

  it.each(ACCEPTED)('accepts $name', async ({ credentials }) => {
    endpoint.expectAccepted(await endpoint.send(testApp.app, await credentials()));
  });

  it('keeps a long token out of an oversized error description', async () => {
    const token = await hs256({ exp: nowSeconds() - 120, padding: 'x'.repeat(4000) });
    const res = await endpoint.send(testApp.app, { authorization: `Bearer ${token}` });
    expectRejected(endpoint, res, invalidToken('the token has expired (exp)'), token);
  });
});

describe('two Authorization headers', () => {
  it.each(ENDPOINTS)('are refused on $name, whichever comes first', async (endpoint) => {
    const good = await hs256();
    for (const order of [[`Bearer ${good}`, 'Bearer x.y.z'], ['Bearer x.y.z', `Bearer ${good}`]]) {
      const res = await endpoint.send(testApp.app, { authorization: order as unknown as string });
      expectRejected(endpoint, res, invalidRequest('send one Authorization header, got 2'), good);
    }
  });

  it('are counted whatever the case of their names, as sent on the wire', async () => {
    const good = await hs256();
    const server = await listen(testApp.app);
    try {
      const answer = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
        // Raw headers as sent (a flat list: Node then adds no Host of its own).
        const headers = ['Host', new URL(server.url).host, 'Authorization', `Bearer ${good}`, 'AUTHORIZATION', `Bearer ${good}`, 'authorization', `Bearer ${good}`];
        const req = httpRequest(`${server.url}/api/broker/v0/calendar/timeline/event?start=2026-05-01&end=2026-05-01`, { headers }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode, body }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(answer.status).toBe(401);
      expect(answer.body).toContain('send one Authorization header, got 3');
    } finally {
      await server.close();
    }
  });
});

describe('a token in the query string (access_token) is never read', () => {
  it('GraphQL answers 401 with a bare challenge', async () => {
    const token = await hs256();
    const res = await GRAPHQL.send(testApp.app, { query: { access_token: token } });
    expectRejected(GRAPHQL, res, authenticationRequired(), token);
  });

  // The facade validates the query string before it demands a principal, so an anonymous request
  // with an unknown parameter gets a 400 naming the parameter. The token is still not used, nor echoed.
  it('REST answers 401 with a bare challenge, as for a request without a token', async () => {
    const token = await hs256();
    expectRejected(REST, await REST.send(testApp.app, { query: { access_token: token } }), authenticationRequired(), token);
  });
});

describe('an anonymous request to the REST facade', () => {
  it('is refused with 401 before its body is read', async () => {
    const res = await request(testApp.app).post('/api/broker/v0/flight/1/passenger').set('Content-Type', 'application/json').send('{not json');
    expectRejected(REST, res, authenticationRequired());
  });
});

describe('the scope a refusal names is the one the operation needs', () => {
  it('asks for passengers:write on the REST push route', async () => {
    const res = await request(testApp.app)
      .post('/api/broker/v0/flight/1/passenger')
      .set('Authorization', `Bearer ${await hs256({ scope: 'timeline:read passengers:read' })}`)
      .send({ created: [], modified: [], deleted: [] });
    expectRejected(REST, res, insufficientScope('passengers:write'));
  });

  it('asks for flights:write on a GraphQL mutation', async () => {
    const res = await request(testApp.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${await hs256({ scope: 'timeline:read passengers:write' })}`)
      .send({ query: 'mutation { deleteFlight(id: 1) }' });
    expectRejected(GRAPHQL, res, insufficientScope('flights:write'));
  });
});

describe('what needs no token', () => {
  it.each([
    ['liveness', '/healthz'],
    ['readiness', '/readyz'],
    ['the OpenAPI document', '/api/broker/v0/openapi.json'],
  ])('serves %s (%s) without a token', async (_what, path) => {
    const res = await request(testApp.app).get(path);
    expect(res.status).toBe(200);
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  it('serves the GraphQL landing page to a browser without a token', async () => {
    const res = await request(testApp.app).get('/graphql').set('Accept', 'text/html');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });

  it('answers introspection without a token, but not a data field in the same query', async () => {
    const introspection = await request(testApp.app).post('/graphql').send({ query: '{ __schema { queryType { name } } }' });
    expect(introspection.status).toBe(200);
    expect(introspection.body.data.__schema.queryType.name).toBe('Query');

    const mixed = await request(testApp.app).post('/graphql').send({ query: '{ __typename resources { id } }' });
    expect(mixed.status).toBe(401);
    expect(mixed.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('still refuses introspection with a bad token (the header is checked whenever it is sent)', async () => {
    const token = await hs256({ exp: nowSeconds() - 120 });
    const res = await request(testApp.app).post('/graphql').set('Authorization', `Bearer ${token}`).send({ query: '{ __typename }' });
    expectRejected(GRAPHQL, res, invalidToken('the token has expired (exp)'), token);
  });
});

/**
 * Verified tokens are kept (src/auth/token-verifier.ts) so that a client sending its token with
 * every request pays for the signature once; the clock's claims are still checked at each use.
 */
describe('a token accepted before', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await startTestApp('auth_bearer_kept', { JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE, JWT_CLOCK_TOLERANCE_SECONDS: '0' });
  });
  afterAll(() => strict.close());

  it.each(ENDPOINTS)('is refused on $name once it expires', async (endpoint) => {
    const exp = nowSeconds() + 2;
    const token = await hs256({ exp });
    for (let i = 0; i < 3; i += 1) endpoint.expectAccepted(await endpoint.send(strict.app, { authorization: `Bearer ${token}` }));
    while (nowSeconds() < exp) await new Promise((resolve) => setTimeout(resolve, 100));
    expectRejected(endpoint, await endpoint.send(strict.app, { authorization: `Bearer ${token}` }), invalidToken('the token has expired (exp)'), token);
  });

  it.each(ENDPOINTS)('is refused on $name with another spelling of its signature', async (endpoint) => {
    const token = await hs256();
    endpoint.expectAccepted(await endpoint.send(strict.app, { authorization: `Bearer ${token}` }));
    const res = await endpoint.send(strict.app, { authorization: `Bearer ${respellLastCharacter(token)}` });
    expectRejected(endpoint, res, invalidToken('the signature is not in canonical base64url'), token);
  });
});
