/**
 * Fan-out latency of GraphQL subscriptions: 1,000 graphql-ws clients (one WebSocket each, each its
 * own token subject) subscribe to passengerListChanged on one flight; passenger pushes then go
 * through the REST facade one at a time, and for each push every client's receipt of it is timed,
 * from the push's answer (the write committed and acknowledged) and from the moment it was sent.
 * The service runs on this thread with the embedded engine, as `npm start` runs it; the clients run
 * in a worker thread, so their parsing is not counted as the server's work (the machine's cores are
 * still shared). Times are absolute (timeOrigin + now), comparable across the two threads.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createApp } from '../src/app';
import { mintToken } from '../src/auth';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/models';
import { createHttpServer } from '../src/http/http-server';
import { createLogger } from '../src/logger';
import { seedDemoData } from '../src/seed/seed';

export interface LatencySummary {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface SubscriptionsBenchResult {
  node: string;
  clients: number;
  pushes: number;
  /** Time to open every connection and have every subscription listening. */
  connectAllMs: number;
  /** Median time from sending a push to its answer. */
  pushAnswerMedianMs: number;
  /** From the push's answer to each client's receipt (negative: the event arrived before the answer). */
  afterAnswer: LatencySummary;
  /** From sending the push to each client's receipt. */
  afterSend: LatencySummary;
  /** Median over the pushes of the time from the answer until the last client had it. */
  lastClientMedianMs: number;
}

/** The clients: connect in batches, subscribe, then report per version when every client has it. */
const CLIENTS = `
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const { createClient } = require('graphql-ws');
const WebSocket = require('ws');
const { url, tokens, flightId } = workerData;
const now = () => performance.timeOrigin + performance.now();
const received = new Map();
const record = (version) => {
  const at = now();
  let times = received.get(version);
  if (!times) received.set(version, (times = []));
  times.push(at);
  if (times.length === tokens.length) {
    received.delete(version);
    parentPort.postMessage({ version, times });
  }
};
const query = 'subscription($f: Int!) { passengerListChanged(flightId: $f) { version } }';
const clients = [];
const subscribe = (token) => {
  const client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: 'Bearer ' + token }, retryAttempts: 0 });
  clients.push(client);
  client.subscribe({ query, variables: { f: flightId } }, {
    next: (result) => (result.data ? record(result.data.passengerListChanged.version) : parentPort.postMessage({ error: JSON.stringify(result.errors) })),
    error: (error) => parentPort.postMessage({ error: String(error && (error.reason || error.message || error.code)) }),
    complete: () => undefined,
  });
  // A subscribe that fails at once: its answer means the one before is listening (messages are handled in order).
  return new Promise((resolve) => client.subscribe({ query: '{' }, { next: () => undefined, error: resolve, complete: resolve }));
};
(async () => {
  for (let i = 0; i < tokens.length; i += 100) await Promise.all(tokens.slice(i, i + 100).map(subscribe));
  parentPort.postMessage({ ready: true });
})();
parentPort.on('message', async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  parentPort.postMessage({ stopped: true });
});
`;

const now = () => performance.timeOrigin + performance.now();

function summarise(values: number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (quantile: number) => sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))];
  return { p50Ms: at(0.5), p99Ms: at(0.99), maxMs: sorted[sorted.length - 1] };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function runSubscriptionsBench(clients = 1000, pushes = 20, warmUp = 3): Promise<SubscriptionsBenchResult> {
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret!',
    RATE_LIMIT_PER_MINUTE: '0',
    PUBLIC_HOST: 'bench.local',
  });
  const logger = createLogger(config);
  const database = await openDatabase(config, logger);
  await database.ready;
  await seedDemoData(database.models, { flights: 1 });
  const flight = await database.models.flights.findOne({}, { flightId: 1 }).lean<{ flightId: number }>().exec();
  if (!flight) throw new Error('the demo data has no flight');
  const gateway = await createApp({ config, logger, database });
  const server = createHttpServer(gateway.app, config);
  gateway.attachWebSockets(server);
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const pusher = await mintToken(config.auth, { sub: 'bench-pusher', scope: ['passengers:write'], ttlSeconds: 3600 });
  const tokens = await Promise.all(Array.from({ length: clients }, (_, index) => mintToken(config.auth, { sub: `bench-client-${index}`, scope: ['passengers:read'], ttlSeconds: 3600 })));

  const connecting = now();
  const worker = new Worker(CLIENTS, { eval: true, workerData: { url: `ws://127.0.0.1:${port}/graphql`, tokens, flightId: flight.flightId } });
  // A push's event may reach every client before its answer reaches this loop: keep what arrives early.
  const arrived = new Map<number, number[]>();
  const waiting = new Map<number, (times: number[]) => void>();
  const receiptsOf = (version: number) =>
    new Promise<number[]>((resolve) => {
      const early = arrived.get(version);
      if (early) resolve(early);
      else waiting.set(version, resolve);
    });
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (message: { ready?: true; version?: number; times?: number[]; error?: string }) => {
      if (message.ready) resolve();
      if (message.error) reject(new Error(`a client failed: ${message.error}`));
      if (message.version === undefined) return;
      const handOver = waiting.get(message.version);
      if (handOver) handOver(message.times!);
      else arrived.set(message.version, message.times!);
    });
    worker.once('error', reject);
  });
  await ready;
  const connectAllMs = now() - connecting;

  const afterAnswer: number[] = [];
  const afterSend: number[] = [];
  const answers: number[] = [];
  const lastClient: number[] = [];
  let recordId = 10_000;
  for (let push = 0; push < warmUp + pushes; push++) {
    recordId += 1;
    const body = JSON.stringify({ created: [passenger(recordId)], modified: [], deleted: [] });
    const sent = now();
    const response = await fetch(`http://127.0.0.1:${port}/api/broker/v0/flight/${flight.flightId}/passenger`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pusher}`, 'content-type': 'application/json' },
      body,
    });
    const answered = now();
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`push answered ${response.status}`);
    const version = Number(JSON.parse(response.headers.get('etag') ?? 'null'));
    const times = await receiptsOf(version);
    waiting.delete(version);
    arrived.delete(version);
    if (push < warmUp) continue;
    answers.push(answered - sent);
    for (const at of times) {
      afterAnswer.push(at - answered);
      afterSend.push(at - sent);
    }
    lastClient.push(Math.max(...times) - answered);
    // Let the sockets drain before the next push, so each push is timed alone.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  const stopped = new Promise((resolve) => worker.on('message', (message: { stopped?: true }) => message.stopped && resolve(null)));
  worker.postMessage('stop');
  await stopped;
  await worker.terminate();
  await gateway.closeWebSockets();
  await new Promise((resolve) => server.close(resolve));
  await gateway.stop();
  await database.close();
  return {
    node: process.version,
    clients,
    pushes,
    connectAllMs,
    pushAnswerMedianMs: median(answers),
    afterAnswer: summarise(afterAnswer),
    afterSend: summarise(afterSend),
    lastClientMedianMs: median(lastClient),
  };
}

function passenger(id: number) {
  return {
    id, surname: 'Bianchi', name: `Passenger ${id}`, luogonascita: 'IT', nazionalita: 'Italy', typedoc: 'P',
    numberdoc: `YA${1_000_000 + id}`, date_born: '1985-03-14', scadenza: '2032-01-01', issuingstate: 'ITA',
    email: null, phone: null, is_carring_infant: false, gender: 'F',
  };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

export function formatSubscriptionsBench(result: SubscriptionsBenchResult): string {
  return [
    `${result.clients} graphql-ws clients, ${result.pushes} pushes (REST), Node ${result.node}; all connected and listening in ${ms(result.connectAllMs)}; push answered in ${ms(result.pushAnswerMedianMs)} (median)`,
    '',
    '| From | p50 | p99 | max |',
    '|---|---|---|---|',
    `| the push's answer | ${ms(result.afterAnswer.p50Ms)} | ${ms(result.afterAnswer.p99Ms)} | ${ms(result.afterAnswer.maxMs)} |`,
    `| sending the push | ${ms(result.afterSend.p50Ms)} | ${ms(result.afterSend.p99Ms)} | ${ms(result.afterSend.maxMs)} |`,
    '',
    `Last of the ${result.clients} clients, after the answer: ${ms(result.lastClientMedianMs)} (median over the pushes).`,
  ].join('\n');
}

if (require.main === module) {
  runSubscriptionsBench()
    .then((result) => console.log(formatSubscriptionsBench(result)))
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
