import request from 'supertest';
import { startTestApp, type TestApp } from '../helpers/test-app';

describe('health endpoints', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp('health');
  });
  afterAll(() => testApp.close());

  it('answers /healthz without a token', async () => {
    const response = await request(testApp.app).get('/healthz').expect(200);
    expect(response.body).toEqual({ status: 'ok' });
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps a sane incoming X-Request-Id', async () => {
    const response = await request(testApp.app).get('/healthz').set('X-Request-Id', 'abc-123').expect(200);
    expect(response.headers['x-request-id']).toBe('abc-123');
  });

  it('reports ready while the database answers', async () => {
    const ready = await request(testApp.app).get('/readyz').expect(200);
    expect(ready.body).toMatchObject({ status: 'ready', database: { reachable: true } });
  });

  it('answers unknown paths with a JSON 404', async () => {
    const response = await request(testApp.app).get('/nope').expect(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
  });
});
