/**
 * What lingering after an early answer costs (src/http/lingering-close.ts): clients that go on
 * sending a 100 MB upload after its 401 (an axios-like client: it sends the whole body whatever
 * comes back), against the real HTTP server in this process. For each case: whether the clients
 * saw the answer, the bytes the server read and dropped, the CPU time this process spent (the
 * clients and a `/healthz` poller run in a child process), that time per MiB, and the `/healthz`
 * latency meanwhile. Not a test: nothing here passes or fails on timings.
 */
import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/models';
import { createHttpServer } from '../src/http/http-server';
import { createLogger } from '../src/logger';

const BODY_BYTES = 100 * 1024 * 1024;

interface Case {
  name: string;
  clients: number;
  env: Record<string, string>;
}

const CASES: Case[] = [
  { name: 'warm-up (not shown)', clients: 1, env: {} },
  { name: 'no upload (baseline)', clients: 0, env: {} },
  { name: '1 client, defaults', clients: 1, env: {} },
  { name: '8 clients at once, defaults', clients: 8, env: {} },
  { name: '1 client, HTTP_LINGER_MAX_BYTES=16 MiB', clients: 1, env: { HTTP_LINGER_MAX_BYTES: String(16 * 1024 * 1024) } },
  { name: '1 client, lingering off (HTTP_LINGER_MAX_CONNECTIONS=0)', clients: 1, env: { HTTP_LINGER_MAX_CONNECTIONS: '0' } },
];

export interface EarlyAnswerRow {
  name: string;
  clients: number;
  /** Clients that read the 401 (the others saw a reset first). */
  answered: number;
  droppedMb: number;
  cpuMs: number;
  wallMs: number;
  healthzP50Ms: number;
  healthzWorstMs: number;
  rssGrowthMb: number;
}

/**
 * The client process. On `{port, bytes, clients}`: that many raw sockets at once, each announcing
 * `bytes` and sending all of them, reading what comes back meanwhile, not stopping at the server's
 * end of stream (allowHalfOpen); answers how many read the 401. On `{watch: url}`: polls it one
 * request at a time, 10 ms apart, until `{stop: true}`, and answers the latencies.
 */
const CLIENT_PROCESS = `
const net = require('node:net');
const { performance } = require('node:perf_hooks');
const block = Buffer.alloc(64 * 1024, 0x61);
let stopped = false;
process.on('message', async (message) => {
  if (message.stop) return void (stopped = true);
  if (message.watch) {
    const latencies = [];
    while (!stopped) {
      const started = performance.now();
      await fetch(message.watch).then((response) => response.arrayBuffer(), () => undefined);
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return void process.send({ latencies });
  }
  const { port, bytes, clients } = message;
  const one = () => new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let received = '';
    let sent = 0;
    socket.on('data', (data) => (received += data.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(/^HTTP\\/1\\.1 401/.test(received)));
    socket.on('connect', () => {
      socket.write('POST /api/broker/v0/upload/1 HTTP/1.1\\r\\nHost: bench\\r\\nContent-Type: multipart/form-data; boundary=x\\r\\nContent-Length: ' + bytes + '\\r\\n\\r\\n');
      const pump = () => {
        while (sent < bytes && !socket.destroyed) {
          const size = Math.min(block.length, bytes - sent);
          sent += size;
          if (!socket.write(size === block.length ? block : block.subarray(0, size))) return void socket.once('drain', pump);
        }
        socket.end();
      };
      pump();
    });
  });
  const answered = await Promise.all(Array.from({ length: clients }, one));
  process.send({ answered: answered.filter(Boolean).length });
});
`;

/** A client process, with a way to send it a message and await its next answer of `key`. */
function startClientProcess() {
  const child: ChildProcess = spawn(process.execPath, ['-e', CLIENT_PROCESS], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = <T>(message: object, key: string) =>
    new Promise<T>((resolve) => {
      const onMessage = (answer: Record<string, T>) => {
        if (!(key in answer)) return;
        child.off('message', onMessage);
        resolve(answer[key]);
      };
      child.on('message', onMessage);
      child.send(message);
    });
  return { child, ask };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

export async function runEarlyAnswersBench(): Promise<{ node: string; rows: EarlyAnswerRow[] }> {
  const base = { NODE_ENV: 'production', LOG_LEVEL: 'silent', JWT_SECRET: 'bench-secret-bench-secret-bench-secret!', RATE_LIMIT_PER_MINUTE: '0', PUBLIC_HOST: 'bench.local' };
  const config = loadConfig(base);
  const logger = createLogger(config);
  const database = await openDatabase(config, logger);
  await database.ready;
  const rows: EarlyAnswerRow[] = [];
  try {
    for (const benchCase of CASES) {
      const caseConfig = loadConfig({ ...base, ...benchCase.env });
      const { app, stop } = await createApp({ config: caseConfig, logger, database });
      const server: Server = createHttpServer(app, caseConfig).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const port = (server.address() as AddressInfo).port;
      let readBytes = 0;
      server.on('connection', (socket: Socket) => socket.once('close', () => (readBytes += socket.bytesRead)));
      const senders = startClientProcess();
      const watcher = startClientProcess();
      try {
        const latencies = watcher.ask<number[]>({ watch: `http://127.0.0.1:${port}/healthz` }, 'latencies');
        await new Promise((resolve) => setTimeout(resolve, 200));
        global.gc?.();
        const rssBefore = process.memoryUsage().rss;
        const cpuBefore = process.cpuUsage();
        const started = performance.now();
        const answered =
          benchCase.clients === 0
            ? await new Promise<number>((resolve) => setTimeout(() => resolve(0), 1000))
            : await senders.ask<number>({ port, bytes: BODY_BYTES, clients: benchCase.clients }, 'answered');
        const wallMs = performance.now() - started;
        const cpu = process.cpuUsage(cpuBefore);
        const rssGrowthMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
        watcher.child.send({ stop: true });
        const seen = await latencies;
        if (benchCase.name.startsWith('warm-up')) continue;
        // The watcher's own requests are a few kB each: what the server read is the uploads'.
        rows.push({
          name: benchCase.name,
          clients: benchCase.clients,
          answered,
          droppedMb: readBytes / 1024 / 1024,
          cpuMs: (cpu.user + cpu.system) / 1000,
          wallMs,
          healthzP50Ms: percentile(seen, 0.5),
          healthzWorstMs: Math.max(...seen),
          rssGrowthMb,
        });
      } finally {
        senders.child.kill();
        watcher.child.kill();
        server.closeAllConnections();
        server.close();
        await stop();
      }
    }
  } finally {
    await database.close();
  }
  return { node: process.version, rows };
}

export function formatEarlyAnswersBench(result: { node: string; rows: EarlyAnswerRow[] }): string {
  const perMb = (row: EarlyAnswerRow) => (row.droppedMb >= 1 ? `${(row.cpuMs / row.droppedMb).toFixed(2)} ms` : '–');
  return [
    `Clients sending a ${BODY_BYTES / 1024 / 1024} MiB upload whatever the answer (401, no token); real HTTP server, Node ${result.node}.`,
    'CPU: the server process\'s (the clients and the /healthz poller run in child processes).',
    '',
    '| Case | Answer seen | Read and dropped | Server CPU | CPU per MiB | Wall | /healthz p50 | /healthz worst | RSS growth |',
    '|---|---|---|---|---|---|---|---|---|',
    ...result.rows.map(
      (row) =>
        `| ${row.name} | ${row.answered} of ${row.clients} | ${row.droppedMb.toFixed(1)} MiB | ${row.cpuMs.toFixed(0)} ms | ${perMb(row)} | ${row.wallMs.toFixed(0)} ms | ${row.healthzP50Ms.toFixed(1)} ms | ${row.healthzWorstMs.toFixed(1)} ms | ${row.rssGrowthMb.toFixed(1)} MB |`,
    ),
  ].join('\n');
}

if (require.main === module) {
  runEarlyAnswersBench()
    .then((result) => console.log(formatEarlyAnswersBench(result)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
