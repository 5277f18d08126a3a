/**
 * Webhook delivery against the real app on the embedded engine, to a receiver on 127.0.0.1 that
 * verifies every request with the standardwebhooks package (in this process: it shares the CPU
 * with the service and the engine). Every event comes from a real createFlight mutation over HTTP.
 *
 * - Latency: one mutation at a time; from sending it to the receiver holding the verified webhook
 *   (the mutation's own time included: its median is reported beside). p50 and p99.
 * - Throughput: the receiver holds its answers while 32 concurrent clients make the events (the
 *   first attempts wait, everything else queues up in MongoDB); then it answers, and the queue is
 *   drained: deliveries per second from the release to the last verified delivery, to 1 and to 4
 *   endpoints. The mutation rate of the same run is shown beside.
 */
import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import { createApp } from '../src/app';
import { mintToken } from '../src/auth';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/models';
import { createLogger } from '../src/logger';
import { seedDemoData } from '../src/seed/seed';

export interface WebhookThroughput {
  endpoints: number;
  events: number;
  deliveries: number;
  /** Mutations answered per second while the backlog was made. */
  mutationsPerSecond: number;
  /** Verified deliveries per second, from the receiver's release to the last delivery. */
  deliveriesPerSecond: number;
}

export interface WebhookBenchResult {
  node: string;
  concurrency: number;
  concurrencyPerEndpoint: number;
  latencySamples: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** The createFlight mutation alone (sent → answered), median. */
  mutationP50Ms: number;
  throughput: WebhookThroughput[];
}

const CLIENTS = 32;
const WARM_UP = 20;

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];

/** A receiver verifying each delivery; while `hold` is on, answers wait for `release()`. */
async function startReceiver(secrets: Map<string, string>, onDelivery: (path: string, flightId: number) => void) {
  const verifiers = new Map<string, Webhook>();
  const failures: string[] = [];
  const held: (() => void)[] = [];
  const state = { hold: false };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const secret = secrets.get(path);
      if (!secret) {
        res.writeHead(404).end();
        return;
      }
      if (!verifiers.has(path)) verifiers.set(path, new Webhook(secret));
      let flightId: number;
      try {
        flightId = (verifiers.get(path)!.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>) as { data: { flightId: number } }).data.flightId;
      } catch (error) {
        res.writeHead(400).end();
        failures.push(`${path}: ${(error as Error).message}`);
        return;
      }
      const answer = () => {
        res.writeHead(204).end();
        onDelivery(path, flightId);
      };
      if (state.hold) held.push(answer);
      else answer();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    failures,
    hold: () => (state.hold = true),
    release: () => {
      state.hold = false;
      held.splice(0).forEach((answer) => answer());
    },
  };
}

export async function runWebhookBench(latencySamples = 200, backlogEvents = 1000): Promise<WebhookBenchResult> {
  const config = loadConfig({
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret!',
    RATE_LIMIT_PER_MINUTE: '0',
    WEBHOOK_ALLOWED_PRIVATE_NETWORKS: '127.0.0.1',
    // The held first attempts must not time out while the backlog is made.
    WEBHOOK_ATTEMPT_TIMEOUT_MS: '120000',
  });
  const logger = createLogger(config);
  const database = await openDatabase(config, logger);
  await database.ready;
  await seedDemoData(database.models, { flights: 1 });
  const gateway = await createApp({ config, logger, database });
  const server = gateway.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  const token = await mintToken(config.auth, { sub: 'bench', scope: ['flights:write', 'webhooks:manage'], ttlSeconds: 3600 });

  const secrets = new Map<string, string>();
  const arrivals = new Map<number, number>();
  let received = 0;
  let lastReceivedAt = 0;
  const receiver = await startReceiver(secrets, (path, flightId) => {
    received += 1;
    lastReceivedAt = performance.now();
    if (path === '/latency') arrivals.set(flightId, lastReceivedAt);
  });

  const graphql = async <T>(query: string, variables: object): Promise<T> => {
    const response = await fetch(base, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    const body = (await response.json()) as { data?: T; errors?: unknown };
    if (!body.data || body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  let flightIndex = 0;
  const createFlight = async (): Promise<number> => {
    const index = flightIndex++;
    const departure = new Date(Date.UTC(2027, 0, 1) + index * 3600_000);
    const data = await graphql<{ createFlight: { flightId: number } }>('mutation($input: CreateFlightInput!) { createFlight(input: $input) { flightId } }', {
      input: { flightNumber: `WB${index}`, resourceId: 1, departureIcao: 'LIRF', departureAt: departure.toISOString(), arrivalIcao: 'LIML', arrivalAt: new Date(departure.getTime() + 3600_000).toISOString() },
    });
    return data.createFlight.flightId;
  };
  const subscribe = async (path: string) => {
    const data = await graphql<{ createWebhookEndpoint: { endpoint: { id: string }; secret: string } }>(
      'mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } secret } }',
      { input: { url: `http://127.0.0.1:${receiver.port}${path}`, eventTypes: ['FLIGHT_CREATED'] } },
    );
    secrets.set(path, data.createWebhookEndpoint.secret);
    return data.createWebhookEndpoint.endpoint.id;
  };
  const unsubscribe = async (ids: string[]) => {
    for (const id of ids) await graphql('mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }', { id });
  };
  const waitUntil = async (done: () => boolean | Promise<boolean>, what: string) => {
    const deadline = Date.now() + 300_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  };

  try {
    // Latency: one change at a time, the next once the previous one arrived.
    const latencyEndpoint = await subscribe('/latency');
    const latencies: number[] = [];
    const mutations: number[] = [];
    for (let sample = 0; sample < latencySamples + WARM_UP; sample += 1) {
      const sentAt = performance.now();
      const flightId = await createFlight();
      const answeredAt = performance.now();
      await waitUntil(() => arrivals.has(flightId), `flight ${flightId}'s webhook`);
      if (sample >= WARM_UP) {
        latencies.push(arrivals.get(flightId)! - sentAt);
        mutations.push(answeredAt - sentAt);
      }
    }
    await unsubscribe([latencyEndpoint]);

    const throughput: WebhookThroughput[] = [];
    const deliveries = database.models.webhookDeliveries;
    for (const endpoints of [1, 4]) {
      const ids: string[] = [];
      for (let index = 0; index < endpoints; index += 1) ids.push(await subscribe(`/backlog-${endpoints}-${index}`));
      received = 0;
      const expected = backlogEvents * endpoints;
      receiver.hold();
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (next < backlogEvents) {
            next += 1;
            await createFlight();
          }
        }),
      );
      const mutatedAt = performance.now();
      await waitUntil(async () => (await deliveries.countDocuments({ endpointId: { $in: ids } }).exec()) === expected, 'the backlog to be dispatched');
      const releasedAt = performance.now();
      receiver.release();
      await waitUntil(() => received >= expected, `${expected} deliveries`);
      throughput.push({
        endpoints,
        events: backlogEvents,
        deliveries: expected,
        mutationsPerSecond: backlogEvents / ((mutatedAt - started) / 1000),
        deliveriesPerSecond: expected / ((lastReceivedAt - releasedAt) / 1000),
      });
      await unsubscribe(ids);
    }
    if (receiver.failures.length) throw new Error(`deliveries failed verification: ${receiver.failures.slice(0, 3).join('; ')}`);
    return {
      node: process.version,
      concurrency: config.webhooks.concurrency,
      concurrencyPerEndpoint: config.webhooks.concurrencyPerEndpoint,
      latencySamples,
      latencyP50Ms: percentile(latencies, 50),
      latencyP99Ms: percentile(latencies, 99),
      mutationP50Ms: percentile(mutations, 50),
      throughput,
    };
  } finally {
    receiver.release();
    server.close();
    receiver.server.close();
    receiver.server.closeAllConnections();
    await gateway.stop();
    await database.close();
  }
}

export function formatWebhookBench(result: WebhookBenchResult): string {
  return [
    `Webhooks to a local verifying receiver, embedded engine, WEBHOOK_CONCURRENCY ${result.concurrency}, per endpoint ${result.concurrencyPerEndpoint} (Node ${result.node}):`,
    '',
    `Latency, createFlight sent → verified delivery, ${result.latencySamples} sequential samples: p50 ${result.latencyP50Ms.toFixed(1)} ms, p99 ${result.latencyP99Ms.toFixed(1)} ms (the mutation alone: p50 ${result.mutationP50Ms.toFixed(1)} ms).`,
    '',
    `| Endpoints | Events (made by ${CLIENTS} clients) | Deliveries | Mutations/s while queueing | Backlog drained, deliveries/s |`,
    '|---|---|---|---|---|',
    ...result.throughput.map((row) => `| ${row.endpoints} | ${row.events} | ${row.deliveries} | ${row.mutationsPerSecond.toFixed(0)} | ${row.deliveriesPerSecond.toFixed(0)} |`),
  ].join('\n');
}

if (require.main === module) {
  runWebhookBench()
    .then((result) => console.log(formatWebhookBench(result)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
