import request from 'supertest';
import { startTestApp, type TestApp } from '../helpers/test-app';

const DEEP_QUERY = '{ flights(start: "2026-01-01", end: "2026-01-02") { departure { airport { icao } } } }';

describe('GraphQL hardening', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp('graphql_hardening', { GRAPHQL_MAX_DEPTH: '3', GRAPHQL_MAX_COST: '500' });
  });
  afterAll(() => testApp.close());

  const post = async (body: object, token?: string) => {
    const call = request(testApp.app).post('/graphql').set('Content-Type', 'application/json');
    if (token) call.set('Authorization', `Bearer ${token}`);
    return call.send(body);
  };

  it('rejects a query deeper than GRAPHQL_MAX_DEPTH with 400 and a clear message', async () => {
    const response = await post({ query: DEEP_QUERY }, await testApp.token());
    expect(response.status).toBe(400);
    expect(response.body.errors[0].message).toMatch(/depth/i);
    expect(response.body.errors[0].message).toContain('3');
    expect(response.body.data).toBeUndefined();
  });

  it('rejects a query costlier than GRAPHQL_MAX_COST with QUERY_TOO_COMPLEX', async () => {
    const query = '{ timelineEvents(view: CALENDAR, start: "2026-01-01", end: "2026-01-02") { resourceId flightId flightNumber backgroundColor textColor borderColor start end url apiVersion passengers } a: resources { id title registration } }';
    const response = await post({ query }, await testApp.token());
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(response.body.errors[0].message).toMatch(/cost \d+ exceeds the limit of 500/);
  });

  it('keeps CSRF prevention on: a simple GET or text/plain POST is refused', async () => {
    const get = await request(testApp.app).get('/graphql').query({ query: '{ __typename }' });
    expect(get.status).toBe(400);
    expect(get.text).toMatch(/CSRF|preflight/i);
    const plain = await request(testApp.app).post('/graphql').set('Content-Type', 'text/plain').send('{"query":"{ __typename }"}');
    expect(plain.status).toBe(400);
  });

  it('asks for a token with 401 and a Bearer challenge when a data query has none', async () => {
    const response = await post({ query: '{ resources { id } }' });
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="broker"');
    expect(response.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('refuses a mutation to a token without flights:write with 403 naming the scope', async () => {
    const token = await testApp.token(['timeline:read']);
    const response = await post({ query: 'mutation { deleteFlight(id: 1) }' }, token);
    expect(response.status).toBe(403);
    expect(response.headers['www-authenticate']).toContain('scope="flights:write"');
    expect(response.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('lets introspection through without a token outside production (Sandbox loads the schema)', async () => {
    const response = await post({ query: '{ __schema { queryType { name } } }' });
    expect(response.status).toBe(200);
    expect(response.body.data.__schema.queryType.name).toBe('Query');
  });

  it('answers a multipart request it cannot read with 400, not 500', async () => {
    const response = await request(testApp.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${await testApp.token()}`)
      .set('Apollo-Require-Preflight', 'true')
      .set('Content-Type', 'multipart/form-data; boundary=xyz')
      .send('garbage');
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toMatch(/multipart/i);
  });

  it('never returns a stack trace', async () => {
    const response = await post({ query: '{ flight(id: "x") { id } }' }, await testApp.token());
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).not.toMatch(/stacktrace|\.ts:\d+|\.js:\d+/);
  });

  it('serves the Sandbox landing page to a browser outside production', async () => {
    const response = await request(testApp.app).get('/graphql').set('Accept', 'text/html');
    expect(response.status).toBe(200);
    expect(response.text).toMatch(/sandbox/i);
  });
});

describe('GraphQL in production', () => {
  it('turns introspection off unless GRAPHQL_INTROSPECTION=true', async () => {
    const off = await startTestApp('graphql_prod_off', { NODE_ENV: 'production' });
    const on = await startTestApp('graphql_prod_on', { NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true' });
    try {
      const query = { query: '{ __schema { queryType { name } } }' };
      const refused = await request(off.app).post('/graphql').set('Authorization', `Bearer ${await off.token()}`).send(query);
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].message).toMatch(/introspection/i);
      const allowed = await request(on.app).post('/graphql').set('Authorization', `Bearer ${await on.token()}`).send(query);
      expect(allowed.body.data.__schema.queryType.name).toBe('Query');
      const landing = await request(off.app).get('/graphql').set('Accept', 'text/html');
      expect(landing.text).not.toMatch(/sandbox/i);
    } finally {
      await off.close();
      await on.close();
    }
  });
});
