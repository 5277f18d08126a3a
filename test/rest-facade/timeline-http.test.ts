import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { print } from 'graphql';
import request from 'supertest';
import { TimelineEventsDocument } from '../../src/graphql/generated/operations';
import { listen } from '../clients/listening-app';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

const CALENDAR = '/api/broker/v0/calendar/timeline/event';
const RANGE = 'start=2026-06-01&end=2026-06-30';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as received, before any decoding. */
  raw: Buffer;
}

/** A request with exactly these headers (no client library adding or decoding anything). */
function rawRequest(url: string, path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const req = httpRequest(target, { method, headers: body ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function decoded(answer: RawAnswer): string {
  const coding = answer.headers['content-encoding'];
  if (coding === 'br') return brotliDecompressSync(answer.raw).toString('utf8');
  if (coding === 'gzip') return gunzipSync(answer.raw).toString('utf8');
  if (coding === undefined) return answer.raw.toString('utf8');
  throw new Error(`unexpected content-encoding ${String(coding)}`);
}

describe('timeline answers over HTTP: compression negotiated with Accept-Encoding, ETags and 304', () => {
  let testApp: TestApp;
  let server: { url: string; close(): Promise<void> };
  let auth: Record<string, string>;

  beforeAll(async () => {
    testApp = await startTestApp('timeline_http');
    await createReferenceData(testApp);
    // Enough entries for an answer well over the 1 KiB below which nothing is compressed.
    for (let day = 1; day <= 12; day += 1) {
      const at = `2026-06-${String(day).padStart(2, '0')}`;
      await createFlight(testApp, { resourceId: 1 + (day % 2), from: 'LIRF', to: 'LPPT', departureAt: `${at}T08:00:00Z`, arrivalAt: `${at}T10:30:00Z` });
    }
    server = await listen(testApp.app);
    auth = { authorization: `Bearer ${await testApp.token(['timeline:read'])}` };
  });
  afterAll(async () => {
    await server.close();
    await testApp.close();
  });

  it('sends the same JSON in brotli, gzip or identity, as each client accepts, with Vary: Accept-Encoding', async () => {
    const identity = await rawRequest(server.url, `${CALENDAR}?${RANGE}`, auth);
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.headers.vary).toMatch(/Accept-Encoding/i);
    const entries = JSON.parse(identity.raw.toString('utf8')) as { flight_id: number }[];
    expect(entries).toHaveLength(12);
    expect(identity.raw.length).toBeGreaterThan(1024);

    const cases: [string, string | undefined][] = [
      ['br, gzip', 'br'],
      ['gzip, deflate', 'gzip'],
      ['br;q=0.5, gzip', 'gzip'],
      ['gzip;q=0, br;q=0', undefined],
      ['deflate', undefined],
      ['*', 'br'],
    ];
    for (const [accept, expected] of cases) {
      const answer = await rawRequest(server.url, `${CALENDAR}?${RANGE}`, { ...auth, 'accept-encoding': accept });
      expect({ accept, status: answer.status, coding: answer.headers['content-encoding'] }).toEqual({ accept, status: 200, coding: expected });
      expect(decoded(answer)).toBe(identity.raw.toString('utf8'));
      expect(Number(answer.headers['content-length'])).toBe(answer.raw.length);
      if (expected) expect(answer.raw.length).toBeLessThan(identity.raw.length / 3);
    }
  });

  it('compresses GraphQL answers too, and leaves small answers and errors alone', async () => {
    const body = JSON.stringify({ query: print(TimelineEventsDocument), variables: { view: 'CALENDAR', start: '2026-06-01', end: '2026-06-30' } });
    const headers = { ...auth, 'content-type': 'application/json', 'accept-encoding': 'gzip' };
    const graphql = await rawRequest(server.url, '/graphql', headers, 'POST', body);
    expect(graphql.status).toBe(200);
    expect(graphql.headers['content-encoding']).toBe('gzip');
    expect((JSON.parse(decoded(graphql)) as { data: { timelineEvents: unknown[] } }).data.timelineEvents).toHaveLength(12);
    // A POST answer cannot be revalidated: no ETag is computed for it.
    expect(graphql.headers.etag).toBeUndefined();

    const oneDay = await rawRequest(server.url, `${CALENDAR}?start=2026-06-03&end=2026-06-03`, { ...auth, 'accept-encoding': 'gzip' });
    expect(oneDay.status).toBe(200);
    expect(oneDay.raw.length).toBeLessThan(1024);
    expect(oneDay.headers['content-encoding']).toBeUndefined();

    const refused = await rawRequest(server.url, `${CALENDAR}?start=2026-06-30&end=2026-06-01`, { ...auth, 'accept-encoding': 'gzip' });
    expect(refused.status).toBe(400);
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(refused.raw.toString('utf8')).error.details[0].field).toBe('start');
  });

  it('answers 304 to fetch() revalidating with the ETag it was given, and 200 with a new ETag once the timeline changed', async () => {
    const url = `${server.url}${CALENDAR}?${RANGE}`;
    const first = await fetch(url, { headers: auth });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]+-[\w+/]{27}"$/);
    const entries = (await first.json()) as unknown[];

    // fetch() adds Cache-Control: no-cache to a request that sets If-None-Match: the 304 comes all the same.
    const unchanged = await fetch(url, { headers: { ...auth, 'if-none-match': etag! } });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');
    expect(unchanged.headers.get('etag')).toBe(etag);
    expect((await fetch(url, { headers: { ...auth, 'if-none-match': `"other", W/${etag}` } })).status).toBe(304);

    await createFlight(testApp, { resourceId: 1, from: 'LGAV', to: 'LIML', departureAt: '2026-06-20T12:00:00Z', arrivalAt: '2026-06-20T14:00:00Z' });
    const changed = await fetch(url, { headers: { ...auth, 'if-none-match': etag! } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect((await changed.json()) as unknown[]).toHaveLength(entries.length + 1);
  });

  it('gives each encoding its own ETag, each revalidated by the client that holds it', async () => {
    const path = `${CALENDAR}?${RANGE}`;
    const identity = await rawRequest(server.url, path, auth);
    const gzip = await rawRequest(server.url, path, { ...auth, 'accept-encoding': 'gzip' });
    expect(gzip.headers.etag).not.toBe(identity.headers.etag);
    const again = await rawRequest(server.url, path, { ...auth, 'accept-encoding': 'gzip', 'if-none-match': String(gzip.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.raw.length).toBe(0);
    expect(again.headers['content-encoding']).toBeUndefined();
  });
});

describe('timeline answers over RESPONSE_MAX_BYTES', () => {
  let limited: TestApp;
  let unlimited: TestApp;

  beforeAll(async () => {
    limited = await startTestApp('timeline_http_limit', { RESPONSE_MAX_BYTES: '4096' });
    // A second process on the same database, with the default limit, reads the whole answer.
    unlimited = await startTestApp('timeline_http_limit', {}, { dbName: limited.database.connection.db!.databaseName });
    await createReferenceData(limited);
    for (let day = 1; day <= 20; day += 1) {
      const at = `2026-06-${String(day).padStart(2, '0')}`;
      await createFlight(limited, { resourceId: 1, from: 'LIRF', to: 'LPPT', departureAt: `${at}T08:00:00Z`, arrivalAt: `${at}T10:30:00Z` });
    }
  });
  afterAll(async () => {
    await unlimited.close();
    await limited.close();
  });

  it('refuses with 413 naming the exact size the answer would have had, and answers what fits', async () => {
    const path = `${CALENDAR}?${RANGE}`;
    const whole = await request(unlimited.app).get(path).set('Authorization', `Bearer ${await unlimited.token(['timeline:read'])}`).set('Accept-Encoding', 'identity');
    expect(whole.status).toBe(200);
    const bytes = Buffer.byteLength(whole.text);
    expect(bytes).toBeGreaterThan(4096);

    const bearer = `Bearer ${await limited.token(['timeline:read'])}`;
    const refused = await request(limited.app).get(path).set('Authorization', bearer);
    expect(refused.status).toBe(413);
    expect(refused.headers.etag).toBeUndefined();
    expect(refused.body.error).toMatchObject({ code: 'RESPONSE_TOO_LARGE', details: [{ bytes, maxBytes: 4096 }] });

    const fits = await request(limited.app).get(`${CALENDAR}?start=2026-06-01&end=2026-06-05`).set('Authorization', bearer).set('Accept-Encoding', 'identity');
    expect(fits.status).toBe(200);
    expect(fits.body).toHaveLength(5);
  });
});
