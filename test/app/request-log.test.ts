import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { TIMELINE_URL } from '../helpers/auth-requests';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/test-app';

type Line = { level: number; msg?: string; reqId?: string; aborted?: boolean; req?: { method?: string; url?: string; headers?: Record<string, string> }; res?: { statusCode?: number }; responseTime?: number };

/** The access log (src/http/request-log.ts), read as an operator reads it: the JSON lines the service writes. */
describe('request log: one line per request, under its X-Request-Id, credentials left out', () => {
  let testApp: TestApp;
  const lines: Line[] = [];
  const linesOf = (requestId: string) => lines.filter((line) => line.reqId === requestId);

  beforeAll(async () => {
    const logger = createLogger(loadConfig({ NODE_ENV: 'test', JWT_SECRET: TEST_SECRET, PUBLIC_HOST: 'broker.test', LOG_LEVEL: 'info' }), {
      write: (line: string) => lines.push(JSON.parse(line) as Line),
    });
    testApp = await startTestApp('request_log', {}, { logger });
  });
  afterAll(() => testApp.close());

  it('logs a request once it is answered, with the id the client chose, its status and time, and never its token', async () => {
    const token = await testApp.token(['timeline:read']);
    const response = await request(testApp.app).get(TIMELINE_URL).set('Authorization', `Bearer ${token}`).set('X-Request-Id', 'calendar-42.a:b').expect(200);
    expect(response.headers['x-request-id']).toBe('calendar-42.a:b');
    const [line, ...more] = linesOf('calendar-42.a:b');
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: 30, msg: 'request completed', req: { method: 'GET', url: TIMELINE_URL }, res: { statusCode: 200 } });
    expect(line.responseTime).toEqual(expect.any(Number));
    expect(line.req?.headers?.authorization).toBe('[redacted]');
    expect(JSON.stringify(line)).not.toContain(token.split('.')[2]);
  });

  it('gives a request without a usable id a new one, and logs a client mistake as a warning', async () => {
    const response = await request(testApp.app).get('/api/broker/v0/no-such-route').set('X-Request-Id', 'not an id; DROP').expect(404);
    const id = response.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(linesOf(id)).toEqual([expect.objectContaining({ level: 40, msg: 'request completed', res: expect.objectContaining({ statusCode: 404 }) })]);
  });

  it("keeps a download link's signature out of the line", async () => {
    const url = '/api/broker/v0/flight/1/passenger?format=csv&expires=1&sub=a&signature=secret-signature_123';
    const response = await request(testApp.app).get(url);
    expect(response.status).toBeGreaterThanOrEqual(400);
    const [line] = linesOf(response.headers['x-request-id']);
    expect(line.req?.url).toBe('/api/broker/v0/flight/1/passenger?format=csv&expires=1&sub=a&signature=[redacted]');
    expect(JSON.stringify(line)).not.toContain('secret-signature_123');
  });

  it('logs a request whose client went away before the answer as aborted', async () => {
    const server = testApp.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const socket = connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      // Half a JSON body: the service waits for the rest, and the client leaves.
      socket.write('POST /graphql HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: gone-early\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query":');
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      const deadline = Date.now() + 5000;
      while (linesOf('gone-early').length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(linesOf('gone-early')).toEqual([expect.objectContaining({ msg: 'request aborted', aborted: true, req: expect.objectContaining({ method: 'POST', url: '/graphql' }) })]);
    } finally {
      server.close();
    }
  });

  it('writes no line for the health probes', async () => {
    for (const probe of ['/healthz', '/readyz']) {
      const response = await request(testApp.app).get(probe);
      expect(response.headers['x-request-id']).toBeDefined();
      expect(linesOf(response.headers['x-request-id'])).toEqual([]);
    }
  });
});
