import request from 'supertest';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

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

  it('advertises only the methods the service answers, on the facade and on /graphql', async () => {
    for (const [path, method] of [[EVENTS, 'GET'], ['/api/broker/v0/flight/1/passenger', 'POST'], ['/graphql', 'POST']]) {
      const preflight = await request(testApp.app).options(path).set('Origin', ORIGIN).set('Access-Control-Request-Method', method).set('Access-Control-Request-Headers', 'authorization,content-type').expect(204);
      expect(preflight.headers['access-control-allow-methods']).toBe('GET,HEAD,POST,OPTIONS');
    }
  });

  it('lets scripts of a listed origin read an export’s file name, its ETag and the other headers clients act on', async () => {
    const token = `Bearer ${await testApp.token()}`;
    await createReferenceData(testApp);
    const flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LPPT', departureAt: '2026-12-20T09:00:00Z', arrivalAt: '2026-12-20T12:00:00Z' });
    await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', token).send({ created: [passengerRecord(1)], modified: [], deleted: [] }).expect(200);
    const file = await request(testApp.app).get(`/api/broker/v0/flight/${flightId}/passenger?format=csv`).set('Origin', ORIGIN).set('Authorization', token).expect(200);
    expect(file.headers['content-disposition']).toBe(`attachment; filename="flight-${flightId}-passengers-v1.csv"`);
    const exposed = String(file.headers['access-control-expose-headers']).split(',');
    for (const name of ['Content-Disposition', 'ETag', 'X-Sheet-Warnings', 'WWW-Authenticate', 'Retry-After', 'X-Request-Id', 'Allow']) expect(exposed).toContain(name);
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
