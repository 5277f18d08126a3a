/**
 * Push latency over HTTP against the real app on the embedded engine: a push of 500 created
 * passengers onto an empty list, a one-record modify on a 500-passenger list, and 100 keyed
 * one-record modifies on a 1,500-passenger list whose every answer carries 1,500 warnings (the first
 * pushes against the last ones: flat when idempotency records stay compact). Requests are
 * sequential, so each timing is one request's latency; medians over the repetitions.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { calculateObjectSize } from 'bson';
import { createApp } from '../src/app';
import { mintToken } from '../src/auth';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/models';
import { createLogger } from '../src/logger';
import { seedDemoData } from '../src/seed/seed';

export interface PushBenchResult {
  node: string;
  repetitions: number;
  create500MedianMs: number;
  modifyOneOf500MedianMs: number;
  /** Keyed one-record modifies of a 1,500-passenger list: median of pushes 1-5 and of pushes 96-100. */
  keyedFirstMedianMs: number;
  keyedHundredthMedianMs: number;
  /** Stored size of that list before the 100 keyed pushes and after them. */
  keyedListBytesBefore: number;
  keyedListBytesAfter: number;
}

const KEYED_PUSHES = 100;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function passenger(id: number) {
  return {
    id, surname: 'Bianchi', name: `Passenger ${id}`, luogonascita: 'IT', nazionalita: 'Italy', typedoc: 'P',
    numberdoc: `YA${1_000_000 + id}`, date_born: '1985-03-14', scadenza: '2032-01-01', issuingstate: 'ITA',
    email: `p${id}@example.com`, phone: '+39 347 123 4567', is_carring_infant: false, gender: 'F',
  };
}

export async function runPushBench(repetitions = 15): Promise<PushBenchResult> {
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', JWT_SECRET: 'bench-secret-bench-secret-bench-secret!', RATE_LIMIT_PER_MINUTE: '0' });
  const logger = createLogger(config);
  const database = await openDatabase(config, logger);
  await database.ready;
  await seedDemoData(database.models, { flights: repetitions * 2 + 2 });
  const { app, stop } = await createApp({ config, logger, database });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const token = await mintToken(config.auth, { sub: 'bench', scope: ['passengers:write'], ttlSeconds: 3600 });
  const push = async (flightId: number, body: unknown, idempotencyKey?: string) => {
    const started = performance.now();
    const response = await fetch(`${base}/api/broker/v0/flight/${flightId}/passenger`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
      body: JSON.stringify(body),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`push answered ${response.status}`);
    return performance.now() - started;
  };
  try {
    await database.models.passengerLists.deleteMany({});
    const created500 = Array.from({ length: 500 }, (_, index) => passenger(index + 1));
    const createTimes: number[] = [];
    const modifyTimes: number[] = [];
    // The first flight warms up the code paths; its timings are dropped.
    for (let flightId = 1; flightId <= repetitions + 1; flightId += 1) {
      const created = await push(flightId, { created: created500, modified: [], deleted: [] });
      const modified = await push(flightId, { created: [], modified: [{ id: 250, email: `changed${flightId}@example.com` }], deleted: [] });
      if (flightId > 1) {
        createTimes.push(created);
        modifyTimes.push(modified);
      }
    }

    // Every document expires the day after tomorrow, before the flight leaves: 1,500 warnings an answer.
    const soon = new Date(Date.now() + 3 * 24 * 3600 * 1000);
    const keyedFlight = await database.models.flights.findOne({ 'departure.at': { $gt: soon }, flightId: { $gt: repetitions + 1 } }, { _id: 0, flightId: 1 }).lean<{ flightId: number }>().exec();
    if (!keyedFlight) throw new Error('no flight departs after three days in the demo data');
    const expiry = new Date(Date.now() + 2 * 24 * 3600 * 1000).toISOString().slice(0, 10);
    const created1500 = Array.from({ length: 1500 }, (_, index) => ({ ...passenger(index + 1), scadenza: expiry }));
    await push(keyedFlight.flightId, { created: created1500, modified: [], deleted: [] });
    const listBytes = async () => calculateObjectSize((await database.models.passengerLists.collection.findOne({ flightId: keyedFlight.flightId }))!);
    const keyedListBytesBefore = await listBytes();
    const keyedTimes: number[] = [];
    for (let index = 1; index <= KEYED_PUSHES; index += 1) {
      keyedTimes.push(await push(keyedFlight.flightId, { created: [], modified: [{ id: index, email: `keyed${index}@example.com` }], deleted: [] }, `bench-key-${index}`));
    }
    return {
      node: process.version,
      repetitions,
      create500MedianMs: median(createTimes),
      modifyOneOf500MedianMs: median(modifyTimes),
      keyedFirstMedianMs: median(keyedTimes.slice(0, 5)),
      keyedHundredthMedianMs: median(keyedTimes.slice(-5)),
      keyedListBytesBefore,
      keyedListBytesAfter: await listBytes(),
    };
  } finally {
    server.close();
    await stop();
    await database.close();
  }
}

export function formatPushBench(result: PushBenchResult): string {
  return [
    `Passenger push over HTTP, embedded engine, ${result.repetitions} repetitions, medians (Node ${result.node}):`,
    '| Push | Median latency |',
    '|---|---|',
    `| 500 created passengers onto an empty list | ${result.create500MedianMs.toFixed(1)} ms |`,
    `| modify one record of a 500-passenger list | ${result.modifyOneOf500MedianMs.toFixed(1)} ms |`,
    `| keyed modify of a 1,500-passenger list (1,500 warnings), pushes 1-5 | ${result.keyedFirstMedianMs.toFixed(1)} ms |`,
    `| keyed modify of a 1,500-passenger list (1,500 warnings), pushes 96-100 | ${result.keyedHundredthMedianMs.toFixed(1)} ms |`,
    '',
    `Stored list before the ${KEYED_PUSHES} keyed pushes: ${(result.keyedListBytesBefore / 1024).toFixed(0)} kB; after: ${(result.keyedListBytesAfter / 1024).toFixed(0)} kB.`,
  ].join('\n');
}

if (require.main === module) {
  runPushBench()
    .then((result) => console.log(formatPushBench(result)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
