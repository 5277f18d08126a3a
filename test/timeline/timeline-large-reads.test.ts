import type { ClientRequest } from 'node:http';
import { holdRequest, type HeldRequest } from '../helpers/held-request';
import { print } from 'graphql';
import { TimelineEventsDocument } from '../../src/graphql/generated/operations';
import { Metrics } from '../../src/metrics/metrics';
import { listen, listenOnSocketFile } from '../clients/listening-app';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createReferenceData, insertManyFlights } from '../helpers/timeline-fixtures';

jest.setTimeout(120_000);

const FLIGHTS = 12_000;
/** 31 days × GRAPHQL_COST_FLIGHTS_PER_DAY (20) = 620 estimated entries: large from 300 on. */
const LARGE = '/api/broker/v0/calendar/timeline/event?start=2026-05-01&end=2026-05-31';
/** 1 day × 20 = 20 estimated entries: small. */
const SMALL = '/api/broker/v0/calendar/timeline/event?start=2026-05-10&end=2026-05-10';

/** A request whose answer is read only when asked: until then its bytes fill the sockets and the server's response stays unfinished. */
describe('large timeline reads take turns (TIMELINE_LARGE_READS_MAX, TIMELINE_LARGE_READS_QUEUE)', () => {
  let testApp: TestApp;
  let metrics: Metrics;
  let server: { url: string; close(): Promise<void> };
  /** Where held requests go: a Unix socket, whose buffers take a few hundred KB of an unread answer on any machine (loopback TCP's can take all of it). */
  let socketFile: { socketPath: string; close(): Promise<void> };
  /** Every request sent by a test, destroyed after it: a failed test must not leave a turn held for the next ones. */
  const sent: ClientRequest[] = [];
  let token: string;
  let scrapeToken: string;

  beforeAll(async () => {
    metrics = new Metrics();
    testApp = await startTestApp(
      'timeline_large_reads',
      { TIMELINE_LARGE_READS_MAX: '1', TIMELINE_LARGE_READS_QUEUE: '1', TIMELINE_LARGE_READ_ENTRIES: '300', GRAPHQL_TIMEOUT_MS: '120000', RATE_LIMIT_PER_MINUTE: '0' },
      { metrics },
    );
    await createReferenceData(testApp);
    // Enough flights (about 4.5 MB of JSON) that an answer nobody reads cannot all be handed to the socket (which takes a few hundred KB).
    await insertManyFlights(testApp, FLIGHTS, { from: '2026-05-01', firstId: 500_000, numberPrefix: 'LRG' });
    server = await listen(testApp.app);
    socketFile = await listenOnSocketFile(testApp.app);
    token = await testApp.token(['timeline:read']);
    scrapeToken = await testApp.token(['metrics:read'], 'prometheus');
  });
  afterEach(async () => {
    for (const req of sent.splice(0)) req.destroy();
    await until({ inFlight: 0, waiting: 0 });
  });
  afterAll(async () => {
    await socketFile.close();
    await server.close();
    await testApp.close();
  });

  /** No Accept-Encoding: the answer is sent as it is, not compressed to a size the sockets would absorb. */
  function held(path: string, method = 'GET', body?: string): HeldRequest {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    return holdRequest({ socketPath: socketFile.socketPath, path, method }, sent, { headers, body });
  }

  async function gauges(): Promise<{ inFlight: number; waiting: number }> {
    const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${scrapeToken}` } })).text();
    const read = (name: string) => Number(new RegExp(`^\\w*${name} (\\S+)$`, 'm').exec(text)?.[1]);
    return { inFlight: read('timeline_large_reads_in_flight'), waiting: read('timeline_large_reads_waiting') };
  }

  /** Scrapes until the gauges show `wanted`; after many scrapes without, fails saying what it saw. */
  async function until(wanted: { inFlight: number; waiting: number }): Promise<void> {
    let seen = await gauges();
    for (let scrape = 0; scrape < 1500 && (seen.inFlight !== wanted.inFlight || seen.waiting !== wanted.waiting); scrape += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = await gauges();
    }
    expect(seen).toEqual(wanted);
  }

  it('serves two large reads one after the other: the second waits until the first one’s answer is sent', async () => {
    await until({ inFlight: 0, waiting: 0 });
    const first = held(LARGE);
    expect((await first.head).statusCode).toBe(200);
    // Its answer is not read: its turn is held until the socket has taken it.
    await until({ inFlight: 1, waiting: 0 });
    const second = held(LARGE);
    await until({ inFlight: 1, waiting: 1 });
    expect(second.answered()).toBe(false);

    expect(JSON.parse(await first.text())).toHaveLength(FLIGHTS);
    expect((await second.head).statusCode).toBe(200);
    expect(JSON.parse(await second.text())).toHaveLength(FLIGHTS);
    await until({ inFlight: 0, waiting: 0 });
  });

  it('answers a small read at once while large ones hold every turn and every place in the queue, and refuses one more large read with 503 and Retry-After, by both routes', async () => {
    const first = held(LARGE);
    await first.head;
    const second = held(LARGE);
    await until({ inFlight: 1, waiting: 1 });

    const small = held(SMALL);
    expect((await small.head).statusCode).toBe(200);
    expect(JSON.parse(await small.text()).length).toBeGreaterThan(0);

    const refused = held(LARGE);
    const refusedHead = await refused.head;
    expect(refusedHead.statusCode).toBe(503);
    expect(refusedHead.headers['retry-after']).toBe('1');
    const refusal = JSON.parse(await refused.text()) as { message: string };
    expect(JSON.stringify(refusal)).toContain('TIMELINE_LARGE_READS_QUEUE');

    const query = JSON.stringify({ query: print(TimelineEventsDocument), variables: { view: 'CALENDAR', start: '2026-05-01', end: '2026-05-31' } });
    const refusedGraphql = held('/graphql', 'POST', query);
    const graphqlHead = await refusedGraphql.head;
    expect(graphqlHead.statusCode).toBe(503);
    expect(graphqlHead.headers['retry-after']).toBe('1');
    const graphqlAnswer = JSON.parse(await refusedGraphql.text()) as { data?: unknown; errors: { message: string; extensions: { code: string } }[] };
    expect(graphqlAnswer.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect(graphqlAnswer.errors[0].message).toContain('TIMELINE_LARGE_READS_QUEUE');
    expect(second.answered()).toBe(false);

    await first.body();
    expect((await second.head).statusCode).toBe(200);
    await second.body();
    await until({ inFlight: 0, waiting: 0 });
  });

  it('serves a GraphQL request with two large timelines (aliases) under one turn, never waiting for itself', async () => {
    const range = 'view: CALENDAR, start: "2026-05-01", end: "2026-05-31"';
    const query = JSON.stringify({ query: `{ a: timelineEvents(${range}) { flightId } b: timelineEvents(${range}) { flightId } }` });
    const both = held('/graphql', 'POST', query);
    expect((await both.head).statusCode).toBe(200);
    const answer = JSON.parse(await both.text()) as { data: { a: unknown[]; b: unknown[] } };
    expect(answer.data.a).toHaveLength(FLIGHTS);
    expect(answer.data.b).toHaveLength(FLIGHTS);
    await until({ inFlight: 0, waiting: 0 });
  });

  it('lets a waiting read whose client went away leave the queue', async () => {
    const first = held(LARGE);
    await first.head;
    const gone = held(LARGE);
    gone.head.catch(() => undefined);
    await until({ inFlight: 1, waiting: 1 });
    gone.req.destroy();
    await until({ inFlight: 1, waiting: 0 });

    // Its place is free again, and its turn was never taken: the next large read waits, then is served.
    const next = held(LARGE);
    await until({ inFlight: 1, waiting: 1 });
    await first.body();
    expect((await next.head).statusCode).toBe(200);
    expect(JSON.parse(await next.text())).toHaveLength(FLIGHTS);
    await until({ inFlight: 0, waiting: 0 });
  });
});
