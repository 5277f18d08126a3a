import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { print } from 'graphql';
import { TimelineLegacyEventsDocument } from '../../src/graphql/generated/operations';
import { listenOnSocketFile } from '../clients/listening-app';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createReferenceData, insertManyFlights } from '../helpers/timeline-fixtures';

jest.setTimeout(120_000);

const FLIGHTS = 12_000;
const RANGE = { start: '2026-05-01', end: '2026-05-31' };
const REST = `/api/broker/v0/calendar/timeline/event?start=${RANGE.start}&end=${RANGE.end}`;
const GRAPHQL_BODY = JSON.stringify({ query: print(TimelineLegacyEventsDocument), variables: { view: 'CALENDAR', ...RANGE } });

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

/**
 * Every answer is written through memory the JSON writer reuses from one answer to the next
 * (src/shared/json-writer.ts). Whatever reuses memory across answers must never touch bytes a socket
 * has not sent yet: answers nobody reads keep their responses unfinished (about 4.5 MB of JSON each,
 * more than a Unix socket absorbs: loopback TCP can take about 4 MB) while others are written. (Lending the scratch memory to large
 * answers without a copy was tried against this test: given back one tick early, it fails.)
 */
describe('large answers written through reused memory', () => {
  let testApp: TestApp;
  let server: { socketPath: string; close(): Promise<void> };
  let token: string;

  beforeAll(async () => {
    testApp = await startTestApp('answer_memory', { TIMELINE_LARGE_READS_MAX: '16', TIMELINE_LARGE_READS_QUEUE: '64', GRAPHQL_TIMEOUT_MS: '120000' });
    await createReferenceData(testApp);
    await insertManyFlights(testApp, FLIGHTS, { from: RANGE.start, firstId: 700_000, numberPrefix: 'MEM' });
    server = await listenOnSocketFile(testApp.app);
    token = await testApp.token(['timeline:read']);
  });
  afterAll(async () => {
    await server.close();
    await testApp.close();
  });

  /** Sends a request; its body is read only when `read` is called (until then its response stays unfinished). No Accept-Encoding: sent uncompressed. */
  function send(route: 'REST' | 'GraphQL') {
    const graphql = route === 'GraphQL';
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (graphql) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(GRAPHQL_BODY)) });
    const req = httpRequest({ socketPath: server.socketPath, path: graphql ? '/graphql' : REST, method: graphql ? 'POST' : 'GET', headers });
    const head = new Promise<IncomingMessage>((resolve, reject) => {
      req.on('response', resolve);
      req.on('error', reject);
    });
    req.end(graphql ? GRAPHQL_BODY : undefined);
    return {
      head,
      read: async () => {
        const res = await head;
        const chunks: Buffer[] = [];
        for await (const chunk of res) chunks.push(chunk as Buffer);
        expect(res.statusCode).toBe(200);
        return Buffer.concat(chunks);
      },
    };
  }

  it('never changes an answer still being sent: held answers read after others were written are byte for byte the same', async () => {
    const reference = { REST: md5(await send('REST').read()), GraphQL: md5(await send('GraphQL').read()) };
    // The same entries both ways (GraphQL's in data.timelineEvents), so neither reference is itself corrupt.
    const rest = JSON.parse((await send('REST').read()).toString('utf8')) as unknown[];
    expect(rest).toHaveLength(FLIGHTS);
    const graphql = JSON.parse((await send('GraphQL').read()).toString('utf8')) as { data: { timelineEvents: unknown[] } };
    expect(graphql.data.timelineEvents).toEqual(rest);

    // Answers nobody reads yet: their responses stay open, their bytes partly unsent.
    const heldOnes = (['REST', 'GraphQL', 'REST', 'GraphQL', 'REST', 'GraphQL'] as const).map((route) => ({ route, request: send(route) }));
    await Promise.all(heldOnes.map(({ request }) => request.head));
    // Meanwhile, more large answers written and read in full, several at once: the reused memory goes round.
    for (let round = 0; round < 3; round += 1) {
      const read = await Promise.all((['REST', 'GraphQL', 'REST', 'GraphQL'] as const).map(async (route) => ({ route, sum: md5(await send(route).read()) })));
      for (const { route, sum } of read) expect(sum).toBe(reference[route]);
    }
    for (const { route, request } of heldOnes) expect(md5(await request.read())).toBe(reference[route]);
  });
});
