/**
 * Timeline route cost, in one run on the same data (bench/timeline-server.ts): the REST calendar
 * route, the same query as a GraphQL POST, and the floor (a bare Express route running the same
 * database query and writing the same JSON). Load comes from this process (autocannon), the server
 * runs in a child, so they do not share an event loop.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { print } from 'graphql';
import { TimelineEventsDocument } from '../src/graphql/generated/operations';
import { BENCH_RANGE } from './timeline-server';

export interface TimelineBenchRow {
  name: string;
  /** Median over the rounds of each round's median latency, ms. */
  p50Ms: number;
  /** Median over the rounds of each round's p99 latency, ms. */
  p99Ms: number;
  /** Median over the rounds of requests per second. */
  rps: number;
  /** Bytes of one response body. */
  bodyBytes: number;
}

export interface TimelineBenchResult {
  node: string;
  rounds: number;
  secondsPerRound: number;
  connections: number;
  rows: TimelineBenchRow[];
}

interface Target {
  name: string;
  request: autocannon.Request & { path: string };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function runTimelineBench(options: { rounds?: number; seconds?: number; connections?: number } = {}): Promise<TimelineBenchResult> {
  const rounds = options.rounds ?? 5;
  const seconds = options.seconds ?? 5;
  const connections = options.connections ?? 4;
  // NODE_ENV=production as deployed: graphql-js, express and others drop their development checks.
  const child = spawn(process.execPath, [path.join(__dirname, 'timeline-server.js')], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_ENV: 'production' } });
  try {
    const { port, token } = await new Promise<{ port: number; token: string }>((resolve, reject) => {
      let buffered = '';
      child.stdout.on('data', (chunk) => {
        buffered += chunk;
        const line = /READY (.*)\n/.exec(buffered);
        if (line) resolve(JSON.parse(line[1]));
      });
      child.on('exit', (code) => reject(new Error(`benchmark server exited with ${code}`)));
    });
    const auth = { authorization: `Bearer ${token}` };
    const query = `start=${BENCH_RANGE.start}&end=${BENCH_RANGE.end}`;
    const targets: Target[] = [
      { name: 'REST facade GET /calendar/timeline/event', request: { method: 'GET', path: `/api/broker/v0/calendar/timeline/event?${query}`, headers: auth } },
      {
        name: 'GraphQL POST timelineEvents (same query)',
        request: {
          method: 'POST',
          path: '/graphql',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ query: print(TimelineEventsDocument), variables: { view: 'CALENDAR', ...BENCH_RANGE } }),
        },
      },
      { name: 'Floor: bare Express route, same query and JSON', request: { method: 'GET', path: `/bench/floor?${query}` } },
      // A typical screen: one day (~160 entries), to set the token verification cost against.
      { name: 'REST facade, one day (typical request)', request: { method: 'GET', path: `/api/broker/v0/calendar/timeline/event?start=2026-05-12&end=2026-05-12`, headers: auth } },
    ];

    const samples = new Map<string, { p50: number[]; p99: number[]; rps: number[]; bytes: number }>();
    for (const target of targets) {
      const response = await fetch(`http://127.0.0.1:${port}${target.request.path}`, { method: target.request.method, headers: target.request.headers as Record<string, string>, body: target.request.body as string | undefined });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${target.name}: status ${response.status}: ${text.slice(0, 200)}`);
      samples.set(target.name, { p50: [], p99: [], rps: [], bytes: Buffer.byteLength(text) });
    }
    // Warm-up, then rounds that alternate the targets so drift on a shared machine hits all alike.
    for (const target of targets) await autocannon({ url: `http://127.0.0.1:${port}`, connections, duration: 2, requests: [target.request] });
    for (let round = 0; round < rounds; round += 1) {
      for (const target of targets) {
        const result = await autocannon({ url: `http://127.0.0.1:${port}`, connections, duration: seconds, requests: [target.request] });
        if (result.non2xx || result.errors) throw new Error(`${target.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        const sample = samples.get(target.name)!;
        sample.p50.push(result.latency.p50);
        sample.p99.push(result.latency.p99);
        sample.rps.push(result.requests.average);
      }
    }
    return {
      node: process.version,
      rounds,
      secondsPerRound: seconds,
      connections,
      rows: targets.map((target) => {
        const sample = samples.get(target.name)!;
        return { name: target.name, p50Ms: median(sample.p50), p99Ms: median(sample.p99), rps: median(sample.rps), bodyBytes: sample.bytes };
      }),
    };
  } finally {
    child.kill('SIGKILL');
  }
}

export function formatTimelineBench(result: TimelineBenchResult): string {
  const [rest, graphql, floor] = result.rows;
  const lines = [
    `Timeline, 5,000 flights in 31 days (100 passengers each); ${result.connections} connections, ${result.rounds} rounds of ${result.secondsPerRound} s; medians over rounds (Node ${result.node}):`,
    '| Route | p50 latency | p99 latency | Requests/s | Body |',
    '|---|---|---|---|---|',
    ...result.rows.map((row) => `| ${row.name} | ${row.p50Ms.toFixed(1)} ms | ${row.p99Ms.toFixed(1)} ms | ${row.rps.toFixed(1)} | ${(row.bodyBytes / 1024 / 1024).toFixed(2)} MiB |`),
    '',
    `Ratios of p50 latency: facade / GraphQL = ${(rest.p50Ms / graphql.p50Ms).toFixed(2)}x (target ≤ 1.15x); GraphQL / floor = ${(graphql.p50Ms / floor.p50Ms).toFixed(2)}x (target ≤ 1.5x).`,
  ];
  return lines.join('\n');
}

if (require.main === module) {
  runTimelineBench()
    .then((result) => console.log(formatTimelineBench(result)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
