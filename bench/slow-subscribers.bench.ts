/**
 * What subscribers that stop reading cost the service: one token subject holds the most it may
 * (WS_MAX_CONNECTIONS_PER_SUBJECT sockets × WS_MAX_SUBSCRIPTIONS_PER_CONNECTION subscriptions, 20 × 20
 * by default) on one flight, then stops reading its sockets (the TCP window closes), and 240 pushes
 * of that flight's list follow. Measured on the service's thread: the event loop's delay
 * (perf_hooks.monitorEventLoopDelay) and probes every 20 ms that count how late they ran, plus the
 * heap after the pushes. The clients and the pusher run in a worker thread.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { createApp } from '../src/app';
import { mintToken } from '../src/auth';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/models';
import { createHttpServer } from '../src/http/http-server';
import { createLogger } from '../src/logger';
import { seedDemoData } from '../src/seed/seed';

export interface SlowSubscribersResult {
  node: string;
  sockets: number;
  subscriptionsPerSocket: number;
  pushes: number;
  loadBefore: number;
  eventLoop: { p50Ms: number; p99Ms: number; maxMs: number };
  probes: number;
  probesOver200Ms: number;
  probesOver50Ms: number;
  worstProbeMs: number;
  pushesMs: number;
  heapAfterMb: number;
  /** The service thread's busy time (event loop utilisation's active time) per push. */
  busyMsPerPush: number;
  socketsClosedByServer: number;
}

const CLIENTS = `
const { parentPort, workerData } = require('node:worker_threads');
const WebSocket = require('ws');
const { url, httpUrl, token, pusher, flightId, sockets, perSocket, pushes } = workerData;
const LIST = 'subscription($f: Int!) { passengerListChanged(flightId: $f) { flightId version created modified deleted passengerCount seq at } }';
const TIMELINE = 'subscription { timelineChanged(start: "2020-01-01", end: "2030-12-31") { change eventType flightId flightGlobalId seq at flight { flightNumber } } }';
let closedByServer = 0;
const open = () => new Promise((resolve, reject) => {
  const ws = new WebSocket(url, 'graphql-transport-ws');
  ws.on('error', () => undefined);
  ws.on('close', () => (closedByServer += 1));
  ws.once('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: 'Bearer ' + token } })));
  let acked = false;
  ws.on('message', (data) => {
    const message = JSON.parse(String(data));
    if (message.type === 'connection_ack' && !acked) {
      acked = true;
      for (let i = 0; i < perSocket; i++) ws.send(JSON.stringify({ id: 's' + i, type: 'subscribe', payload: i % 2 ? { query: TIMELINE } : { query: LIST, variables: { f: flightId } } }));
      ws.send(JSON.stringify({ id: 'probe', type: 'subscribe', payload: { query: '{' } }));
    } else if (message.id === 'probe') {
      resolve(ws);
    }
  });
  ws.once('unexpected-response', () => reject(new Error('refused')));
});
const passenger = (id) => ({ id, surname: 'Bianchi', name: 'Passenger ' + id, luogonascita: 'IT', nazionalita: 'Italy', typedoc: 'P',
  numberdoc: 'YA' + (1000000 + id), date_born: '1985-03-14', scadenza: '2032-01-01', issuingstate: 'ITA', email: null, phone: null, is_carring_infant: false, gender: 'F' });
(async () => {
  const all = [];
  for (let i = 0; i < sockets; i++) all.push(await open());
  // Stop reading: the sockets' receive buffers fill and the server's sends wait.
  for (const ws of all) ws.pause();
  parentPort.postMessage({ ready: true });
  await new Promise((resolve) => parentPort.once('message', resolve));
  const started = Date.now();
  for (let i = 0; i < pushes; i++) {
    const response = await fetch(httpUrl + '/api/broker/v0/flight/' + flightId + '/passenger', { method: 'POST', headers: { authorization: 'Bearer ' + pusher, 'content-type': 'application/json' },
      body: JSON.stringify({ created: [passenger(20000 + i)], modified: [], deleted: [] }) });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error('push answered ' + response.status);
  }
  parentPort.postMessage({ pushed: Date.now() - started, closedByServer });
  for (const ws of all) ws.terminate();
})().catch((error) => parentPort.postMessage({ error: String(error) }));
`;

/** `sockets` 0: the pushes alone, the baseline the subscribers' cost is read against. */
export async function runSlowSubscribersBench(pushes = 240, withSubscribers = true): Promise<SlowSubscribersResult> {
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', JWT_SECRET: 'bench-secret-bench-secret-bench-secret!', RATE_LIMIT_PER_MINUTE: '0', PUBLIC_HOST: 'bench.local' });
  const sockets = withSubscribers ? config.subscriptions.maxConnectionsPerSubject : 0;
  const perSocket = config.subscriptions.maxSubscriptionsPerConnection;
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
  const token = await mintToken(config.auth, { sub: 'slow-reader', scope: ['passengers:read', 'timeline:read'], ttlSeconds: 3600 });
  const pusher = await mintToken(config.auth, { sub: 'bench-pusher', scope: ['passengers:write'], ttlSeconds: 3600 });
  const worker = new Worker(CLIENTS, {
    eval: true,
    workerData: { url: `ws://127.0.0.1:${port}/graphql`, httpUrl: `http://127.0.0.1:${port}`, token, pusher, flightId: flight.flightId, sockets, perSocket, pushes },
  });
  const messages: Array<Record<string, unknown>> = [];
  const next = () => new Promise<Record<string, unknown>>((resolve, reject) => {
    worker.once('message', (message: Record<string, unknown>) => (message.error ? reject(new Error(String(message.error))) : resolve(message)));
    worker.once('error', reject);
  });
  messages.push(await next());

  const loadBefore = loadavg()[0];
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  const lateness: number[] = [];
  let probing = true;
  const probe = () => {
    if (!probing) return;
    const expected = performance.now() + 20;
    setTimeout(() => {
      lateness.push(performance.now() - expected);
      probe();
    }, 20);
  };
  probe();
  histogram.enable();
  const utilisation = performance.eventLoopUtilization();
  const done = next();
  worker.postMessage('push');
  const result = await done;
  histogram.disable();
  const busy = performance.eventLoopUtilization(utilisation);
  probing = false;
  const heapAfterMb = process.memoryUsage().heapUsed / 2 ** 20;

  await worker.terminate();
  await gateway.closeWebSockets();
  await new Promise((resolve) => server.close(resolve));
  await gateway.stop();
  await database.close();
  return {
    node: process.version,
    sockets,
    subscriptionsPerSocket: perSocket,
    pushes,
    loadBefore,
    eventLoop: { p50Ms: histogram.percentile(50) / 1e6, p99Ms: histogram.percentile(99) / 1e6, maxMs: histogram.max / 1e6 },
    probes: lateness.length,
    probesOver200Ms: lateness.filter((late) => late > 200).length,
    probesOver50Ms: lateness.filter((late) => late > 50).length,
    worstProbeMs: Math.max(...lateness),
    pushesMs: Number(result.pushed),
    heapAfterMb,
    busyMsPerPush: busy.active / pushes,
    socketsClosedByServer: Number(result.closedByServer),
  };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

export function formatSlowSubscribersBench(result: SlowSubscribersResult): string {
  return [
    `${result.sockets} sockets × ${result.subscriptionsPerSocket} subscriptions of one subject that stopped reading, ${result.pushes} pushes in ${ms(result.pushesMs)}; Node ${result.node}, load average ${result.loadBefore.toFixed(1)} before`,
    `event loop delay p50 ${ms(result.eventLoop.p50Ms)}, p99 ${ms(result.eventLoop.p99Ms)}, max ${ms(result.eventLoop.maxMs)}`,
    `probes every 20 ms: ${result.probes}, over 50 ms late: ${result.probesOver50Ms}, over 200 ms: ${result.probesOver200Ms}, worst ${ms(result.worstProbeMs)}`,
    `service thread busy ${ms(result.busyMsPerPush)} per push`,
    `heap after the pushes ${result.heapAfterMb.toFixed(0)} MB; sockets the server closed before the end: ${result.socketsClosedByServer}`,
  ].join('\n');
}

if (require.main === module) {
  runSlowSubscribersBench(240, process.argv[2] !== 'baseline')
    .then((result) => console.log(formatSlowSubscribersBench(result)))
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
