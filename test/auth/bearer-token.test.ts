import request from 'supertest';
import {
  authConfig,
  challengeParams,
  createAuthHarness,
  nowSeconds,
  PUSH_PATH,
  secretBytes,
  signToken,
  TEST_SECRET,
  TIMELINE_PATH,
  unsignedToken,
  validClaims,
  withPayload,
} from '../helpers/auth-harness';

const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'broker-api';
const app = createAuthHarness(authConfig({ jwtSecret: TEST_SECRET, issuer: ISSUER, audience: AUDIENCE }));

const claims = (overrides: Parameters<typeof validClaims>[0] = {}) =>
  validClaims({ iss: ISSUER, aud: AUDIENCE, ...overrides });
const hs256 = (overrides: Parameters<typeof validClaims>[0] = {}) => signToken(claims(overrides), secretBytes());

/** Asserts the RFC 6750 invalid_token answer and that nothing in it repeats the token. */
async function expectInvalidToken(token: string, described: RegExp) {
  const res = await request(app).get(TIMELINE_PATH).set('Authorization', `Bearer ${token}`);
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('UNAUTHENTICATED');
  const params = challengeParams(res.headers['www-authenticate']);
  expect(params).toMatchObject({ realm: 'broker', error: 'invalid_token' });
  expect(params.error_description).toMatch(described);
  expect(res.body.error.message).toMatch(described);
  expectNoTokenIn(res, token);
  return res;
}

function expectNoTokenIn(res: request.Response, token: string) {
  const everything = `${res.headers['www-authenticate']} ${res.text}`;
  for (const part of token.split('.').filter((piece) => piece.length >= 8)) {
    expect(everything).not.toContain(part);
  }
}

describe('bearer token authentication (HS256 secret, issuer and audience configured)', () => {
  it('accepts a valid token and yields subject, scopes and token id', async () => {
    const token = await hs256({ scope: 'timeline:read passengers:read', jti: 'abc-123' });
    const res = await request(app).get(TIMELINE_PATH).set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ subject: 'alice', scopes: ['passengers:read', 'timeline:read'], tokenId: 'abc-123' });
  });

  it.each(['bearer', 'BEARER', 'BeArEr'])('accepts the scheme written as %s', async (scheme) => {
    const res = await request(app).get(TIMELINE_PATH).set('Authorization', `${scheme} ${await hs256()}`);
    expect(res.status).toBe(200);
  });

  describe('without usable credentials', () => {
    it('answers 401 with a bare Bearer challenge when the header is missing', async () => {
      const res = await request(app).get(TIMELINE_PATH);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="broker"');
      expect(res.body.error).toEqual({
        code: 'UNAUTHENTICATED',
        message: 'Authentication required: send Authorization: Bearer <token>',
        details: [],
      });
    });

    it('answers 401 with a bare Bearer challenge for another scheme (Basic)', async () => {
      const res = await request(app).get(TIMELINE_PATH).set('Authorization', 'Basic YWxpY2U6c2VjcmV0');
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="broker"');
      expect(res.body.error.message).toMatch(/Unsupported authorization scheme/);
      expect(res.text).not.toContain('YWxpY2U6c2VjcmV0');
    });

    it.each([
      ['an empty token', 'Bearer', /token is empty/],
      ['an empty token after spaces', 'Bearer    ', /token is empty/],
      ['extra parts', 'Bearer aaa.bbb.ccc extra', /exactly one token/],
      ['characters outside b64token', 'Bearer aaa"bbb', /characters/],
    ])('answers 401 invalid_request for %s', async (_case, header, described) => {
      const res = await request(app).get(TIMELINE_PATH).set('Authorization', header);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
      const params = challengeParams(res.headers['www-authenticate']);
      expect(params).toMatchObject({ realm: 'broker', error: 'invalid_request' });
      expect(params.error_description).toMatch(described);
    });

    it('ignores a valid token in the query string', async () => {
      const token = await hs256();
      const res = await request(app).get(TIMELINE_PATH).query({ access_token: token });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="broker"');
    });

    it('ignores a valid token in a cookie', async () => {
      const token = await hs256();
      const res = await request(app).get(TIMELINE_PATH).set('Cookie', `access_token=${token}; token=${token}`);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="broker"');
    });
  });

  describe('with a token that fails a check', () => {
    it('rejects garbage', () => expectInvalidToken('not-a-jwt-at-all', /not a well-formed signed JWT/));

    it('rejects three segments that are not JSON', () =>
      expectInvalidToken('bm90LWpzb24.bm90LWpzb24.c2lnbmF0dXJl', /not a well-formed signed JWT/));

    it('rejects alg: none', () => expectInvalidToken(unsignedToken(claims()), /algorithm is not accepted; expected HS256/));

    it('rejects a token signed with another secret', async () => {
      const forged = await signToken(claims(), secretBytes('another-secret-that-is-32-bytes-long!!'));
      await expectInvalidToken(forged, /signature verification failed/);
    });

    it('rejects a token whose payload was edited (scopes added)', async () => {
      const genuine = await hs256();
      const tampered = withPayload(genuine, claims({ scope: 'timeline:read flights:write', sub: 'mallory' }));
      await expectInvalidToken(tampered, /signature verification failed/);
    });

    it('rejects an HS512 token even with the right secret (algorithm fixed by configuration)', async () => {
      const token = await signToken(claims(), secretBytes(), { alg: 'HS512' });
      await expectInvalidToken(token, /algorithm is not accepted/);
    });

    it('rejects an expired token', () => hs256({ exp: nowSeconds() - 120 }).then((t) => expectInvalidToken(t, /expired \(exp\)/)));

    it('accepts a token expired by less than the 30 s clock tolerance', async () => {
      const res = await request(app).get(TIMELINE_PATH).set('Authorization', `Bearer ${await hs256({ exp: nowSeconds() - 10 })}`);
      expect(res.status).toBe(200);
    });

    it('rejects a token without exp', async () => {
      const { exp: _exp, ...withoutExp } = claims();
      await expectInvalidToken(await signToken(withoutExp, secretBytes()), /no exp claim/);
    });

    it('rejects a token whose nbf is in the future', () =>
      hs256({ nbf: nowSeconds() + 300 }).then((t) => expectInvalidToken(t, /not valid yet \(nbf\)/)));

    it('accepts a token whose nbf is within the clock tolerance', async () => {
      const res = await request(app).get(TIMELINE_PATH).set('Authorization', `Bearer ${await hs256({ nbf: nowSeconds() + 10 })}`);
      expect(res.status).toBe(200);
    });

    it('rejects a wrong issuer', () => hs256({ iss: 'https://evil.example.test/' }).then((t) => expectInvalidToken(t, /unexpected issuer/)));

    it('rejects a missing issuer', () => hs256({ iss: undefined }).then((t) => expectInvalidToken(t, /no iss claim/)));

    it('rejects a wrong audience', () => hs256({ aud: 'another-api' }).then((t) => expectInvalidToken(t, /unexpected audience/)));

    it('accepts the audience inside an array', async () => {
      const token = await hs256({ aud: ['another-api', AUDIENCE] });
      expect((await request(app).get(TIMELINE_PATH).set('Authorization', `Bearer ${token}`)).status).toBe(200);
    });

    it('rejects a token without sub', () => hs256({ sub: undefined }).then((t) => expectInvalidToken(t, /no sub claim/)));

    it('rejects a scope claim that is not a string', () =>
      hs256({ scope: ['timeline:read'] }).then((t) => expectInvalidToken(t, /scope claim must be a space-separated string/)));
  });

  describe('scopes', () => {
    it('answers 403 insufficient_scope naming the missing scope', async () => {
      const token = await hs256({ scope: 'passengers:read' });
      const res = await request(app).get(TIMELINE_PATH).set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(403);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="broker", error="insufficient_scope", scope="timeline:read"');
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.message).toContain('timeline:read');
    });

    it('names the scope of the route (passengers:write for a push)', async () => {
      const res = await request(app).post(PUSH_PATH).set('Authorization', `Bearer ${await hs256()}`);
      expect(res.status).toBe(403);
      expect(challengeParams(res.headers['www-authenticate']).scope).toBe('passengers:write');
    });

    it('answers 403 for a token with no scope claim at all', async () => {
      const res = await request(app).get(TIMELINE_PATH).set('Authorization', `Bearer ${await hs256({ scope: undefined })}`);
      expect(res.status).toBe(403);
    });

    it('accepts scopes in an scp array', async () => {
      const token = await hs256({ scope: undefined, scp: ['passengers:read', 'timeline:read'] });
      const res = await request(app).get(TIMELINE_PATH).set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(200);
      expect(res.body.scopes).toEqual(['passengers:read', 'timeline:read']);
    });

    it('accepts scopes in an scp space-separated string (Entra ID)', async () => {
      const token = await hs256({ scope: undefined, scp: 'timeline:read passengers:write' });
      const res = await request(app).post(PUSH_PATH).set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(204);
    });

    it('does not grant a scope that only prefixes a granted one', async () => {
      const res = await request(app).get(TIMELINE_PATH).set('Authorization', `Bearer ${await hs256({ scope: 'timeline:readonly timeline' })}`);
      expect(res.status).toBe(403);
    });
  });
});
