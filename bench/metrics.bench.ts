/**
 * What the Prometheus metrics cost a request: the 31-day REST calendar timeline (1,000 flights of
 * 100 passengers) served by three apps on one database: without metrics, with them but without the
 * driver's command events, and with everything, measured in alternating rounds on keep-alive
 * connections, one request at a time. Medians of the per-round means; the ratio is what matters
 * (both apps share this process, its engine thread and the machine's noise).
 */
import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app';
import { mintToken } from '../src/auth';
import { loadConfig } from '../src/config';
import { openDatabase, type Database } from '../src/models';
import { startEmbeddedMongoInThread } from '@broker/embedded-mongo/thread';
import { createHttpServer } from '../src/http/http-server';
import { createLogger } from '../src/logger';
import { Metrics } from '../src/metrics/metrics';
import { seedDemoData } from '../src/seed/seed';
import { BENCH_MONTH, seedBenchFlights } from './timeline-server';

export interface MetricsBenchResult {
  flights: number;
  rounds: number;
  requestsPerRound: number;
  /** Per configuration: medians over rounds of the mean wall time and CPU (this process, every thread) per request, in ms. */
  rows: { name: string; wallMs: number; cpuMs: number }[];
  answerBytes: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function runMetricsBench({ flights = 1000, rounds = 9, requestsPerRound = 20 } = {}): Promise<MetricsBenchResult> {
  const logger = createLogger({ logLevel: 'silent', nodeEnv: 'production' });
  const engine = await startEmbeddedMongoInThread({ logger });
  const uri = `${engine.uri}/metrics_bench`;
  const config = loadConfig({
    NODE_ENV: 'production', LOG_LEVEL: 'silent', MONGODB_URI: uri, DB_OPERATION_TIMEOUT_MS: '120000', DB_SERVER_SELECTION_TIMEOUT_MS: '60000', JWT_SECRET: 'bench-secret-bench-secret-bench-secret!',
    PUBLIC_HOST: 'bench.local', TIMEZONE: 'UTC', RATE_LIMIT_PER_MINUTE: '0',
    CHANGE_FEED_POLL_MS: '60000', OUTBOX_SWEEP_INTERVAL_MS: '3600000', WEBHOOK_SWEEP_INTERVAL_MS: '3600000',
  });
  const databases: Database[] = [];
  const servers: http.Server[] = [];
  try {
    const plainDb = await openDatabase(config, logger);
    databases.push(plainDb);
    await plainDb.ready;
    await seedDemoData(plainDb.models, { today: new Date('2026-08-15T00:00:00Z'), flights: 0 });
    await seedBenchFlights(plainDb.connection.db!, flights);
    // Metrics without the driver's command events, and with them (a separate connection each).
    const httpMetrics = new Metrics();
    const fullMetrics = new Metrics();
    const meteredDb = await openDatabase(config, logger, { observeClient: (client) => fullMetrics.observeMongoClient(client) });
    databases.push(meteredDb);
    await meteredDb.ready;

    const start = async (database: Database, withMetrics?: Metrics) => {
      const gateway = await createApp({ config, logger, database, metrics: withMetrics });
      const server = createHttpServer(gateway.app, config, logger);
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return (server.address() as AddressInfo).port;
    };
    const configurations = [
      { name: 'off', port: await start(plainDb) },
      { name: 'on, without MongoDB command events', port: await start(plainDb, httpMetrics) },
      { name: 'on, with MongoDB command events', port: await start(meteredDb, fullMetrics) },
    ];
    const token = await mintToken(config.auth, { sub: 'bench', scope: ['timeline:read'], ttlSeconds: 3600 });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const path = `/api/broker/v0/calendar/timeline/event?start=${BENCH_MONTH.start}&end=${BENCH_MONTH.end}`;
    let answerBytes = 0;
    const get = (port: number) =>
      new Promise<void>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port, path, agent, headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'identity' } }, (res) => {
          let bytes = 0;
          res.on('data', (chunk: Buffer) => (bytes += chunk.length));
          res.on('end', () => (res.statusCode === 200 ? ((answerBytes = bytes), resolve()) : reject(new Error(`status ${res.statusCode}`))));
          res.on('error', reject);
        });
        req.on('error', reject);
      });
    const window = async (port: number) => {
      const cpu = process.cpuUsage();
      const started = process.hrtime.bigint();
      for (let i = 0; i < requestsPerRound; i += 1) await get(port);
      const wall = Number(process.hrtime.bigint() - started) / 1e6 / requestsPerRound;
      const used = process.cpuUsage(cpu);
      return { wall, cpu: (used.user + used.system) / 1000 / requestsPerRound };
    };
    // A warm-up of each, then rounds in rotating order.
    for (const configuration of configurations) await window(configuration.port);
    const samples = configurations.map(() => [] as { wall: number; cpu: number }[]);
    for (let round = 0; round < rounds; round += 1) {
      for (let k = 0; k < configurations.length; k += 1) {
        const index = (round + k) % configurations.length;
        samples[index].push(await window(configurations[index].port));
      }
    }
    agent.destroy();
    return {
      flights, rounds, requestsPerRound, answerBytes,
      rows: configurations.map((configuration, index) => ({ name: configuration.name, wallMs: median(samples[index].map((s) => s.wall)), cpuMs: median(samples[index].map((s) => s.cpu)) })),
    };
  } finally {
    for (const server of servers) server.close();
    for (const database of databases) await database.close().catch(() => undefined);
    await engine.stop();
  }
}

export function formatMetricsBench(result: MetricsBenchResult): string {
  const [off] = result.rows;
  return [
    `31-day REST calendar timeline, ${result.flights} flights (${(result.answerBytes / 1024).toFixed(0)} KiB answer), ${result.rounds} rotating rounds of ${result.requestsPerRound} requests, one at a time; medians of round means`,
    '',
    '| Metrics | Wall per request | CPU per request (all threads) | Wall / off | CPU / off |',
    '|---|---|---|---|---|',
    ...result.rows.map((row) => `| ${row.name} | ${row.wallMs.toFixed(2)} ms | ${row.cpuMs.toFixed(2)} ms | ${(row.wallMs / off.wallMs).toFixed(3)} | ${(row.cpuMs / off.cpuMs).toFixed(3)} |`),
  ].join('\n');
}
