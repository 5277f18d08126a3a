/**
 * Worst-case requests: the attacks of issue 9 (huge variable lists, alias bombs, error floods,
 * parser abuse) and the most expensive legitimate requests, each sent once over HTTP to the real
 * app on the embedded engine with the demo data. For each: the answer's status and size, the
 * process CPU time it cost (server and client share this process, so the client's own share, a
 * few ms of JSON, is included), and the worst `/healthz` latency measured while it ran — a
 * request that blocks the event loop delays every other request by as long. Not a test: nothing
 * here passes or fails on timings.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createApp } from '../src/app';
import { createHttpServer } from '../src/http/http-server';
import { ALL_SCOPES, mintToken } from '../src/auth';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/models';
import { createLogger } from '../src/logger';
import { seedDemoData } from '../src/seed/seed';

interface Attack {
  name: string;
  /** Which token the request carries. */
  token: 'none' | 'timeline' | 'all';
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

export interface WorstCaseRow {
  name: string;
  token: Attack['token'];
  status: number;
  responseBytes: number;
  cpuMs: number;
  wallMs: number;
  worstHealthzMs: number;
}

export interface WorstCaseResult {
  node: string;
  rows: WorstCaseRow[];
  /** RSS growth after distinct anonymous 9,000-alias documents (the compiled-query cache). */
  aliasDocuments: number;
  rssGrowthMb: number;
}

/** Each request is sent this many times; CPU and wall time are medians, /healthz the worst of all. */
const RUNS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const PUSH_MUTATION = 'mutation($c: PassengerListChangesInput!){ pushPassengerList(flightId: 1, changes: $c){ version } }';

function fragmentChain(length: number): string {
  const fragments = Array.from({ length }, (_, index) => `fragment F${index} on Query { ${index + 1 < length ? `...F${index + 1}` : '__typename'} }`);
  return `query { ...F0 } ${fragments.join(' ')}`;
}

function aliasDocument(count: number, salt: string): string {
  return `query Q${salt} { ${Array.from({ length: count }, (_, index) => `a${index}: __typename`).join(' ')} }`;
}

const ATTACKS: Attack[] = [
  {
    name: 'anonymous GraphQL push, deleted = 240,000 strings',
    token: 'none',
    method: 'POST',
    path: '/graphql',
    body: { query: PUSH_MUTATION, variables: { c: { created: [], modified: [], deleted: Array.from({ length: 240_000 }, () => 'x') } } },
  },
  {
    name: 'REST push, created = [0 ×100,000]',
    token: 'all',
    method: 'POST',
    path: '/api/broker/v0/flight/1/passenger',
    body: { created: Array.from({ length: 100_000 }, () => 0), modified: [], deleted: [] },
  },
  {
    name: 'REST push, deleted = 200,000 bad ids',
    token: 'all',
    method: 'POST',
    path: '/api/broker/v0/flight/1/passenger',
    body: { created: [], modified: [], deleted: Array.from({ length: 200_000 }, () => 'x') },
  },
  {
    name: '980 aliases of timelineEvents over 366 days',
    token: 'timeline',
    method: 'POST',
    path: '/graphql',
    body: {
      query: `{ ${Array.from({ length: 980 }, (_, index) => `t${index}: timelineEvents(view: CALENDAR, start: "2026-06-01", end: "2027-06-01") { flightId }`).join(' ')} }`,
    },
  },
  { name: 'anonymous 9,000 __typename aliases', token: 'none', method: 'POST', path: '/graphql', body: { query: aliasDocument(9000, 'x') } },
  { name: 'chain of 2,000 fragments', token: 'timeline', method: 'POST', path: '/graphql', body: { query: fragmentChain(2000) } },
  {
    name: 'airports(search: 50,000 chars)',
    token: 'timeline',
    method: 'POST',
    path: '/graphql',
    body: { query: `{ airports(search: "${'a'.repeat(50_000)}") { icao } }` },
  },
  { name: 'two operations, no operationName', token: 'timeline', method: 'POST', path: '/graphql', body: { query: 'query A { __typename } query B { __typename }' } },
  { name: 'unknown operationName', token: 'timeline', method: 'POST', path: '/graphql', body: { query: 'query A { __typename }', operationName: 'Nope' } },
  { name: 'subscription { x }', token: 'timeline', method: 'POST', path: '/graphql', body: { query: 'subscription { x }' } },
  {
    name: 'legitimate: REST calendar timeline, 366 days',
    token: 'timeline',
    method: 'GET',
    path: '/api/broker/v0/calendar/timeline/event?start=2026-06-01&end=2027-06-01',
  },
];

/**
 * Sends one request at a time from a worker thread, so that building and reading the client's side
 * (a 938 kB JSON body, say) does not run on the server's event loop and is not counted as its work.
 */
const CLIENT = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', async ({ url, method, headers, body }) => {
  try {
    const response = await fetch(url, { method, headers, body });
    parentPort.postMessage({ status: response.status, bytes: (await response.arrayBuffer()).byteLength });
  } catch (error) {
    parentPort.postMessage({ status: 0, bytes: 0, error: String(error) });
  }
});
`;

const HEALTH_WATCHER = `
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
let stopped = false;
let worst = 0;
parentPort.once('message', () => { stopped = true; });
(async () => {
  while (!stopped) {
    const started = performance.now();
    // A keep-alive socket the server closed while it was blocked resets; the wait still counts.
    await fetch(workerData).then((response) => response.arrayBuffer(), () => undefined);
    worst = Math.max(worst, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  parentPort.postMessage(worst);
})();
`;

export async function runWorstCaseBench(aliasDocuments = 40): Promise<WorstCaseResult> {
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', JWT_SECRET: 'bench-secret-bench-secret-bench-secret!', RATE_LIMIT_PER_MINUTE: '0', PUBLIC_HOST: 'bench.local' });
  const logger = createLogger(config);
  const database = await openDatabase(config, logger);
  await database.ready;
  await seedDemoData(database.models, { today: new Date('2026-11-21T00:00:00Z') });
  const { app, stop } = await createApp({ config, logger, database });
  const server = createHttpServer(app, config).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tokens = {
    none: undefined,
    timeline: await mintToken(config.auth, { sub: 'bench', scope: ['timeline:read'], ttlSeconds: 3600 }),
    all: await mintToken(config.auth, { sub: 'bench', scope: [...ALL_SCOPES], ttlSeconds: 3600 }),
  };

  const client = new Worker(CLIENT, { eval: true });
  /** The request, serialised before the clock starts, sent by the client thread. */
  const prepare = (attack: Attack) => {
    const headers: Record<string, string> = {};
    if (attack.body !== undefined) headers['content-type'] = 'application/json';
    if (tokens[attack.token]) headers.authorization = `Bearer ${tokens[attack.token]}`;
    return { url: `${base}${attack.path}`, method: attack.method, headers, body: attack.body === undefined ? undefined : JSON.stringify(attack.body) };
  };
  const send = (request: ReturnType<typeof prepare>) =>
    new Promise<{ status: number; bytes: number }>((resolve) => {
      client.once('message', resolve);
      client.postMessage(request);
    });

  /**
   * Polls /healthz one request at a time from a worker thread (its own event loop, so it keeps
   * sending while this one is blocked) until told to stop; answers the slowest latency seen.
   */
  const watchHealth = () => {
    const worker = new Worker(HEALTH_WATCHER, { eval: true, workerData: `${base}/healthz` });
    const worst = new Promise<number>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    return async () => {
      worker.postMessage('stop');
      const result = await worst;
      await worker.terminate();
      return result;
    };
  };

  try {
    const rows: WorstCaseRow[] = [];
    for (const attack of ATTACKS) {
      const request = prepare(attack);
      const samples: Array<{ status: number; bytes: number; busyMs: number; wallMs: number; healthzMs: number }> = [];
      for (let run = 0; run < RUNS; run += 1) {
        const stopWatching = watchHealth();
        await new Promise((resolve) => setTimeout(resolve, 50));
        // The server's own work: the time its event loop (this thread) was busy, not idle waiting.
        const before = performance.eventLoopUtilization();
        const started = performance.now();
        const { status, bytes } = await send(request);
        const wallMs = performance.now() - started;
        const busyMs = performance.eventLoopUtilization(before).active;
        samples.push({ status, bytes, busyMs, wallMs, healthzMs: await stopWatching() });
      }
      rows.push({
        name: attack.name,
        token: attack.token,
        status: samples[0].status,
        responseBytes: samples[0].bytes,
        cpuMs: median(samples.map((sample) => sample.busyMs)),
        wallMs: median(samples.map((sample) => sample.wallMs)),
        worstHealthzMs: Math.max(...samples.map((sample) => sample.healthzMs)),
      });
    }

    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    for (let index = 0; index < aliasDocuments; index += 1) {
      await send(prepare({ name: 'alias document', token: 'timeline', method: 'POST', path: '/graphql', body: { query: aliasDocument(9000, String(index)) } }));
    }
    global.gc?.();
    const rssGrowthMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
    return { node: process.version, rows, aliasDocuments, rssGrowthMb };
  } finally {
    await client.terminate();
    server.close();
    await stop();
    await database.close();
  }
}

export function formatWorstCaseBench(result: WorstCaseResult): string {
  const number = (value: number) => Math.round(value).toLocaleString('en-US');
  return [
    `Worst-case requests, one at a time, embedded engine, demo data (Node ${result.node}); medians of ${RUNS} runs.`,
    'Server CPU: time the server event loop was busy on the request (the client runs in another thread).',
    '',
    '| Request | Token | Status | Answer | Server CPU | Wall | Worst /healthz meanwhile |',
    '|---|---|---|---|---|---|---|',
    ...result.rows.map(
      (row) => `| ${row.name} | ${row.token} | ${row.status} | ${number(row.responseBytes)} B | ${row.cpuMs.toFixed(1)} ms | ${row.wallMs.toFixed(1)} ms | ${row.worstHealthzMs.toFixed(1)} ms |`,
    ),
    '',
    `RSS growth after ${result.aliasDocuments} distinct 9,000-alias documents with a token (the compiled-query cache): ${result.rssGrowthMb.toFixed(1)} MB`,
  ].join('\n');
}

if (require.main === module) {
  runWorstCaseBench()
    .then((result) => console.log(formatWorstCaseBench(result)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
