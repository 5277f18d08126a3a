import { once } from 'node:events';
import type { Server } from 'node:http';
import fc from 'fast-check';
import request from 'supertest';
import { ErrorCode } from '../../src/errors';
import { createHttpServer } from '../../src/http/http-server';
import { seedDemoData } from '../../src/seed/seed';
import { databaseDigest } from '../helpers/database-snapshot';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { FUZZ, hostileJson, hostileString, INTERNAL_MESSAGE } from './hostile-values';

/**
 * The four legacy routes (and their neighbours), driven as a client written from the contract alone
 * might get them wrong: any method, path parameter, query string, header and body. Whatever arrives:
 * never a 5xx, always `{"error": {code, message, details}}`, and a refused write changes nothing.
 */

let testApp: TestApp;
// The server `npm start` listens with, so what Node itself refuses (431, 400) is covered too.
let server: Server;
let tokens: Record<string, string | undefined>;
const KNOWN_CODES = new Set<string>(Object.values(ErrorCode));
const BASE = '/api/broker/v0';

beforeAll(async () => {
  testApp = await startTestApp('fuzz_rest');
  server = createHttpServer(testApp.app, testApp.config).listen(0, '127.0.0.1');
  await once(server, 'listening');
  await seedDemoData(testApp.database.models, { flights: 12, today: new Date('2026-06-10T00:00:00Z') });
  tokens = {
    none: undefined,
    all: await testApp.token(),
    readOnly: await testApp.token(['timeline:read']),
    garbage: 'x.y.z',
  };
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await testApp.close();
});

const idParameter = fc.oneof(
  fc.integer({ min: -2, max: 20 }).map(String),
  hostileString.map((text) => encodeURIComponent(Buffer.from(text).toString()).slice(0, 3000)),
  // Sent as they are: malformed percent-encoding and dot segments.
  fc.constantFrom('%', '%E0%A4%A', '%FF', '%2e%2e', '1%00', '1e3', '0x10', '+1', ' 1'.replace(' ', '%20')),
);
const paths = fc.oneof(
  fc.constantFrom(`${BASE}/calendar/timeline/event`, `${BASE}/resource/timeline/event`, `${BASE}/resource/timeline/resources`, `${BASE}/upload/template.xlsx`, `${BASE}/openapi.json`),
  idParameter.map((id) => `${BASE}/upload/${id}`),
  idParameter.map((id) => `${BASE}/flight/${id}/passenger`),
);
const queryValue = fc.oneof(fc.constantFrom('2026-06-10', '2026-06-01', '2026-06-10T08:00:00+02:00', '2025-01-01', '2027-12-31'), hostileString);
const query = fc.dictionary(fc.oneof(fc.constantFrom('start', 'end', 'timeZone', '_', 'resourceId'), hostileString), queryValue, { maxKeys: 4 });
const headers = fc.record(
  {
    'If-Match': fc.oneof(fc.constantFrom('"0"', '"1"', '*', 'W/"2"', '"-1"'), hostileString),
    'Idempotency-Key': hostileString,
    'Content-Type': fc.constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=B', 'multipart/form-data', 'application/json; charset=latin1', 'application/x-www-form-urlencoded'),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  fc.constant(undefined),
  hostileJson.map((value) => JSON.stringify(value)),
  fc.record({ created: hostileJson, modified: hostileJson, deleted: hostileJson }, { requiredKeys: [] }).map((value) => JSON.stringify(value)),
  fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes)),
  fc.string({ maxLength: 200 }).map((text) => `--B\r\nContent-Disposition: form-data; name="paxlist"; filename="a.xlsx"\r\n\r\n${text}`),
);

function header(value: string): string {
  // Node refuses to send control characters in a header; a real client cannot send them either.
  return value.replace(/[^\t\x20-\x7e]/g, '?').slice(0, 4000);
}

describe('the REST facade with generated requests', () => {
  it('never answers 5xx, always in the error model, and a refused write leaves the database unchanged', async () => {
    const call = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
      path: paths,
      query,
      headers,
      body,
      token: fc.constantFrom(...Object.keys(tokens)),
    });
    await fc.assert(
      fc.asyncProperty(call, async (sent) => {
        const before = await databaseDigest(testApp.database.connection);
        const search = new URLSearchParams(sent.query).toString();
        const pending = request(server)[sent.method.toLowerCase() as 'get'](`${sent.path}${search ? `?${search}` : ''}`);
        for (const [name, value] of Object.entries(sent.headers)) pending.set(name, header(value));
        if (tokens[sent.token]) pending.set('Authorization', `Bearer ${tokens[sent.token]}`);
        const res = await (sent.body === undefined ? pending : pending.send(sent.body));
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) {
          expect(res.headers['content-type']).toMatch(/^application\/json/);
          expect(KNOWN_CODES.has(res.body.error?.code)).toBe(true);
          expect(typeof res.body.error.message).toBe('string');
          expect(Array.isArray(res.body.error.details)).toBe(true);
          expect(res.body.error.message).not.toMatch(INTERNAL_MESSAGE);
          expect(JSON.stringify(res.body).length).toBeLessThan(64 * 1024);
          expect(await databaseDigest(testApp.database.connection)).toBe(before);
        }
      }),
      FUZZ,
    );
  });
});
