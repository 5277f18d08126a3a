/**
 * What tracing costs: the 31-day REST timeline request (5,000 flights in May 2026, as the timeline
 * benchmark has them) against two servers of bench/timeline-server.ts started alike, one without
 * OTEL_EXPORTER_OTLP_ENDPOINT and one with it, exporting (OTLP, http/protobuf, the default) to a sink
 * in this process that takes every export and throws it away. Both load src/telemetry/register
 * first, as main.ts does. Rounds alternate the servers, so a busy machine's drift hits both alike;
 * each round is a window of sequential requests (server CPU and allocation per request, from the
 * server's own account: its embedded engine's thread included, the same work in both), then
 * autocannon sends the request over several connections (latency and throughput).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import autocannon from 'autocannon';
import { getOperationAST, parse } from 'graphql';
import { withOperationSpan } from '../src/telemetry/operation-span';
import { median, type WindowFigures } from './timeline-measure';

export interface TracingBenchOptions {
  flights?: number;
  rounds?: number;
  /** Sequential requests in each round's window. */
  requestsPerRound?: number;
  /** Connections of the concurrent run, and requests each sends. */
  connections?: number;
  requestsPerConnection?: number;
}

export interface TracingBenchRow {
  tracing: 'off' | 'on';
  cpuMsPerRequest: number;
  wallMsPerRequest: number;
  allocatedBytesPerRequest: number;
  p50Ms: number;
  p99Ms: number;
  rps: number;
  /** Answers other than 200. */
  refused: number;
  load: number;
}

export interface TracingBenchResult {
  node: string;
  flights: number;
  rounds: number;
  requestsPerRound: number;
  connections: number;
  rows: TracingBenchRow[];
  /** What the sink received from the traced server. */
  exports: number;
  exportedBytes: number;
  /** What the no-op operation span (tracing off) adds to one operation, ns (median of 5 loops). */
  noopSpanNs: number;
}

/**
 * Without an SDK, the one thing of OpenTelemetry left on a request's path is the API's no-op span
 * that src/telemetry/operation-span.ts puts around a compiled query: its cost in a loop, against the
 * same loop without it. Run in this process, which has no SDK either.
 */
export async function measureNoopSpan(iterations = 200_000): Promise<number> {
  const operation = getOperationAST(parse('query TimelineLegacyEvents { timelineEvents { id } }'))!;
  const run = async () => 1;
  const differences: number[] = [];
  for (let loop = 0; loop < 6; loop += 1) {
    let started = process.hrtime.bigint();
    for (let i = 0; i < iterations; i += 1) await run();
    const bare = Number(process.hrtime.bigint() - started) / iterations;
    started = process.hrtime.bigint();
    for (let i = 0; i < iterations; i += 1) await withOperationSpan(operation, run);
    const wrapped = Number(process.hrtime.bigint() - started) / iterations;
    // The first loop warms up.
    if (loop > 0) differences.push(wrapped - bare);
  }
  return median(differences);
}

const RANGE = 'start=2026-05-01&end=2026-05-31';
const FACADE = `/api/broker/v0/calendar/timeline/event?${RANGE}`;
const EXTENSION = path.extname(__filename);
/** bench/ and src/ side by side, in the sources and in dist/ alike. */
const SRC = path.join(__dirname, '../src');
const ROOT = path.resolve(__dirname, EXTENSION === '.ts' ? '..' : '../..');

type Child = ChildProcessByStdio<null, Readable, null>;

interface Server {
  tracing: 'off' | 'on';
  port: number;
  token: string;
  child: Child;
}

async function startServer(tracing: 'off' | 'on', flights: number, sink: string): Promise<Server> {
  const preload = EXTENSION === '.ts' ? ['-r', path.join(ROOT, 'scripts/register-ts.cjs')] : [];
  const flags = JSON.parse(readFileSync(path.join(ROOT, 'scripts/v8-flags.json'), 'utf8')) as { service: string[] };
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (tracing === 'on') env.OTEL_EXPORTER_OTLP_ENDPOINT = sink;
  const args = [...flags.service, '--expose-gc', ...preload, '-r', path.join(SRC, `telemetry/register${EXTENSION}`), path.join(__dirname, `timeline-server${EXTENSION}`), String(flights)];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  const ready = await new Promise<{ port: number; token: string }>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const found = /READY (.*)\n/.exec(buffered);
      if (found) resolve(JSON.parse(found[1]) as { port: number; token: string });
    });
    child.on('exit', (code) => reject(new Error(`benchmark server (tracing ${tracing}) exited with ${code}`)));
  });
  return { tracing, ...ready, child };
}

async function post(server: Server, route: string): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${server.port}${route}`, { method: 'POST' });
  return response.text();
}

async function timeline(server: Server): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${server.port}${FACADE}`, { headers: { authorization: `Bearer ${server.token}` } });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`tracing ${server.tracing}: status ${response.status}: ${body.slice(0, 300)}`);
}

export async function runTracingBench(options: TracingBenchOptions = {}): Promise<TracingBenchResult> {
  const { flights = 5000, rounds = 5, requestsPerRound = 10, connections = 4, requestsPerConnection = 10 } = options;
  let exports = 0;
  let exportedBytes = 0;
  const sink = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (exportedBytes += chunk.length));
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const servers: Server[] = [];
  try {
    // One after the other: seeding 5,000 flights twice at once overran the database time limit on a busy machine.
    for (const tracing of ['off', 'on'] as const) servers.push(await startServer(tracing, flights, sinkUrl));
    const windows = new Map<Server, WindowFigures[]>(servers.map((server) => [server, []]));
    // Warm-up: graphql-jit compiles the document on its second sighting.
    for (const server of servers) for (let i = 0; i < 4; i += 1) await timeline(server);
    for (let round = 0; round < rounds; round += 1) {
      for (const server of round % 2 ? [...servers].reverse() : servers) {
        for (let i = 0; i < 2; i += 1) await timeline(server);
        await post(server, '/bench/window/start');
        for (let i = 0; i < requestsPerRound; i += 1) await timeline(server);
        windows.get(server)!.push(JSON.parse(await post(server, '/bench/window/stop')) as WindowFigures);
      }
    }
    const rows: TracingBenchRow[] = [];
    for (const server of servers) {
      const url = `http://127.0.0.1:${server.port}`;
      const request = { method: 'GET' as const, path: FACADE, headers: { authorization: `Bearer ${server.token}` } };
      const run = await autocannon({ url, connections, amount: connections * requestsPerConnection, timeout: 120, requests: [request] });
      const figures = windows.get(server)!;
      const per = (pick: (figure: WindowFigures) => number) => median(figures.map((figure) => pick(figure) / requestsPerRound));
      rows.push({
        tracing: server.tracing,
        cpuMsPerRequest: per((figure) => figure.cpuMs),
        wallMsPerRequest: per((figure) => figure.wallMs),
        allocatedBytesPerRequest: per((figure) => figure.allocatedBytes),
        p50Ms: run.latency.p50,
        p99Ms: run.latency.p99,
        rps: run.requests.average,
        refused: run.non2xx + run.errors,
        load: median(figures.map((figure) => figure.load)),
      });
    }
    // The traced server's last batch goes out within its schedule delay.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    return { node: process.version, flights, rounds, requestsPerRound, connections, rows, exports, exportedBytes, noopSpanNs: await measureNoopSpan() };
  } finally {
    for (const server of servers) server.child.kill('SIGKILL');
    sink.closeAllConnections();
    sink.close();
  }
}

export function formatTracingBench(result: TracingBenchResult): string {
  const [off, on] = result.rows;
  const ratio = (a: number, b: number) => `${(b / a).toFixed(2)}x`;
  return [
    `Node ${result.node}, ${os.cpus().length} cores, ${result.flights} flights, 31-day REST facade request; ${result.rounds} rounds of ${result.requestsPerRound} sequential requests per server (medians), then ${result.connections} connections.`,
    '',
    '| Tracing | CPU per request | Wall per request | Allocated per request | p50 (concurrent) | p99 | Requests/s | Not 200 | Load |',
    '|---|---|---|---|---|---|---|---|---|',
    ...result.rows.map(
      (row) =>
        `| ${row.tracing} | ${row.cpuMsPerRequest.toFixed(1)} ms | ${row.wallMsPerRequest.toFixed(1)} ms | ${(row.allocatedBytesPerRequest / 1e6).toFixed(1)} MB | ${row.p50Ms} ms | ${row.p99Ms} ms | ${row.rps.toFixed(1)} | ${row.refused} | ${row.load.toFixed(2)} |`,
    ),
    '',
    `on / off: CPU ${ratio(off.cpuMsPerRequest, on.cpuMsPerRequest)}, wall ${ratio(off.wallMsPerRequest, on.wallMsPerRequest)}, allocation ${ratio(off.allocatedBytesPerRequest, on.allocatedBytesPerRequest)}, concurrent p50 ${ratio(off.p50Ms, on.p50Ms)}.`,
    `The sink received ${result.exports} exports, ${(result.exportedBytes / 1024).toFixed(0)} KiB.`,
    `Tracing off: the no-op operation span adds ${(result.noopSpanNs / 1000).toFixed(1)} µs to an operation.`,
  ].join('\n');
}

if (require.main === module) {
  runTracingBench()
    .then((result) => console.log(formatTracingBench(result)))
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
