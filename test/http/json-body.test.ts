import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startTestApp, type TestApp } from '../helpers/test-app';

let testApp: TestApp;
let server: http.Server;
let port: number;
beforeAll(async () => {
  testApp = await startTestApp('json_body', { JSON_MAX_BYTES: '2048' });
  server = testApp.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await testApp.close();
});

/**
 * Sends headers and `sent` bytes of a body that would go on for ever, and resolves with the answer
 * that arrives while the request is still open: the server must answer without reading to the end.
 */
function answerBeforeBodyEnds(path: string, headers: http.OutgoingHttpHeaders, sent: number): Promise<{ status: number; body: string; connection?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'Content-Type': 'application/json', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection });
      });
    });
    req.on('error', reject);
    req.write(`{"query":"${'x'.repeat(sent)}`);
    // Never ended: a server that waits for the end never answers and the test times out.
  });
}

describe('JSON bodies over the limit', () => {
  it.each([
    ['GraphQL', '/graphql'],
    ['the REST push', '/api/broker/v0/flight/1/passenger'],
  ])('%s: a Content-Length over the limit is refused with 413 before any body byte is read', async (_name, path) => {
    const token = await testApp.token();
    const answer = await answerBeforeBodyEnds(path, { Authorization: `Bearer ${token}`, 'Content-Length': 100 * 1024 * 1024 }, 10);
    expect(answer.status).toBe(413);
    expect(answer.connection).toBe('close');
    expect(JSON.stringify(JSON.parse(answer.body))).toContain('larger than the limit of 2048 bytes');
  });

  it.each([
    ['GraphQL', '/graphql'],
    ['the REST push', '/api/broker/v0/flight/1/passenger'],
  ])('%s: a chunked body is refused with 413 as soon as it passes the limit', async (_name, path) => {
    const token = await testApp.token();
    const answer = await answerBeforeBodyEnds(path, { Authorization: `Bearer ${token}`, 'Transfer-Encoding': 'chunked' }, 8192);
    expect(answer.status).toBe(413);
    expect(answer.connection).toBe('close');
  });

  it.each([
    ['GraphQL', '/graphql'],
    ['the REST push', '/api/broker/v0/flight/1/passenger'],
  ])('%s: words the 413 the same whether the Content-Length or the bytes told', async (_name, path) => {
    const token = await testApp.token();
    const message = (answer: { body: string }) => {
      const body = JSON.parse(answer.body) as { error?: { message: string }; errors?: Array<{ message: string }> };
      return body.error?.message ?? body.errors?.[0].message;
    };
    const declared = await answerBeforeBodyEnds(path, { Authorization: `Bearer ${token}`, 'Content-Length': 100 * 1024 * 1024 }, 10);
    const counted = await answerBeforeBodyEnds(path, { Authorization: `Bearer ${token}`, 'Transfer-Encoding': 'chunked' }, 8192);
    expect([message(declared), message(counted)]).toEqual(['The JSON body is larger than the limit of 2048 bytes', 'The JSON body is larger than the limit of 2048 bytes']);
  });

  it('still reads a body within the limit, and answers 400 naming bad JSON', async () => {
    const ok = await request(testApp.app).post('/graphql').set('Authorization', `Bearer ${await testApp.token()}`).send({ query: '{ __typename }' });
    expect(ok.status).toBe(200);
    const bad = await request(testApp.app).post('/graphql').set('Content-Type', 'application/json').send('{"query": ');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toMatch(/not valid JSON/);
  });

  it('refuses a compressed body with 415 rather than inflating it', async () => {
    const res = await request(testApp.app).post('/graphql').set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send('{}');
    expect(res.status).toBe(415);
  });
});

describe('requests without a valid token', () => {
  it('may carry only a small JSON body: a large anonymous one is refused with 401 before it is read', async () => {
    const anonymous = await startTestApp('json_body_anonymous', { ANONYMOUS_JSON_MAX_BYTES: '1024' });
    try {
      const big = { query: 'mutation($c: PassengerListChangesInput!){ pushPassengerList(flightId: 1, changes: $c){ version } }', variables: { c: { created: [], modified: [], deleted: Array.from({ length: 2000 }, (_, i) => `id-${i}`) } } };
      const refused = await request(anonymous.app).post('/graphql').send(big);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(refused.body.errors[0].message).toContain('at most 1024 bytes');
      const badToken = await request(anonymous.app).post('/graphql').set('Authorization', 'Bearer x.y.z').send(big);
      expect(badToken.status).toBe(401);
      expect(badToken.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      // Introspection still works without a token, and the same body with one is read.
      expect((await request(anonymous.app).post('/graphql').send({ query: '{ __schema { queryType { name } } }' })).status).toBe(200);
      const withToken = await request(anonymous.app).post('/graphql').set('Authorization', `Bearer ${await anonymous.token()}`).send(big);
      expect(withToken.status).not.toBe(401);
    } finally {
      await anonymous.close();
    }
  });

  it('cannot send a multipart body to /graphql: 401 before the file is read', async () => {
    const res = await request(testApp.app)
      .post('/graphql')
      .set('Apollo-Require-Preflight', 'true')
      .field('operations', JSON.stringify({ query: 'mutation($f: Upload!){ uploadPassengerList(flightId: 1, file: $f){ recordId } }', variables: { f: null } }))
      .field('map', JSON.stringify({ 0: ['variables.f'] }))
      .attach('0', Buffer.alloc(1000, 1), 'a.xlsx');
    expect(res.status).toBe(401);
    expect(res.body.errors[0].message).toContain('Uploads need a token');
  });
});

describe('multipart uploads to /graphql with a token lacking passengers:write', () => {
  it('are refused with 403 naming the scope before the file is read', async () => {
    const res = await request(testApp.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${await testApp.token(['timeline:read'])}`)
      .set('Apollo-Require-Preflight', 'true')
      .field('operations', JSON.stringify({ query: 'mutation($f: Upload!){ uploadPassengerList(flightId: 1, file: $f){ recordId } }', variables: { f: null } }))
      .field('map', JSON.stringify({ 0: ['variables.f'] }))
      .attach('0', Buffer.alloc(1000, 1), 'a.xlsx');
    expect(res.status).toBe(403);
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(res.headers['www-authenticate']).toContain('scope="passengers:write"');
  });
});
