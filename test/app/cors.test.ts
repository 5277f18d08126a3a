import request from 'supertest';
import { startTestApp, type TestApp } from '../helpers/test-app';

describe('cross-origin access (CORS_ORIGINS)', () => {
  let testApp: TestApp;
  const ORIGIN = 'https://ops.example.com';
  const EVENTS = '/api/broker/v0/calendar/timeline/event?start=2026-06-10&end=2026-06-10';

  beforeAll(async () => {
    testApp = await startTestApp('cors', { CORS_ORIGINS: `${ORIGIN}, http://localhost:5173` });
  });
  afterAll(() => testApp.close());

  it('answers a browser preflight for a listed origin, allowing the bearer header', async () => {
    const response = await request(testApp.app)
      .options(EVENTS)
      .set('Origin', ORIGIN)
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'authorization')
      .expect(204);
    expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(response.headers['access-control-allow-headers']).toMatch(/Authorization/);
    // A REST client reading a list back revalidates it with If-None-Match; it pushes with If-Match.
    expect(response.headers['access-control-allow-headers']).toMatch(/If-None-Match/);
  });

  it('lets scripts of a listed origin read the answer and its ETag-like headers', async () => {
    const response = await request(testApp.app).get(EVENTS).set('Origin', ORIGIN).set('Authorization', `Bearer ${await testApp.token()}`).expect(200);
    expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(response.headers['access-control-expose-headers']).toMatch(/ETag/);
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('gives no CORS headers to an origin that is not listed', async () => {
    const response = await request(testApp.app).get(EVENTS).set('Origin', 'https://evil.example').set('Authorization', `Bearer ${await testApp.token()}`);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('without CORS_ORIGINS', () => {
  it('sends no CORS headers at all', async () => {
    const plain = await startTestApp('cors_off');
    try {
      const response = await request(plain.app).get('/api/broker/v0/resource/timeline/resources').set('Origin', 'https://ops.example.com').set('Authorization', `Bearer ${await plain.token()}`).expect(200);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});
