/**
 * The server side of the timeline benchmark, run as a child process so the load generator does not
 * share its event loop or its CPU account: the real app on the embedded engine with `flights`
 * flights in May 2026 (argv[2], 100 passengers each), plus routes for the benchmark itself:
 *
 * - `/bench/floor`: a bare Express route that runs the same service and writes the same JSON as the
 *   REST facade (the cost of the data path without GraphQL);
 * - `/bench/limit`: the physical limit of a request (bench/timeline-measure.ts) on exactly the
 *   documents it reads;
 * - `/bench/window/start` and `/bench/window/stop`: CPU, allocation and peak RSS of the requests in
 *   between; `/bench/profile/start` and `/bench/profile/stop`: a V8 CPU profile of them.
 */
import 'reflect-metadata';
import { Session } from 'node:inspector';
import express from 'express';
import type { Db, Document } from 'mongodb';
import { createApp } from '../src/app';
import { mintToken } from '../src/auth';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/models';
import { FLIGHT_PROJECTION, overlapFilter } from '../src/flights/flight.service';
import { createHttpServer } from '../src/http/http-server';
import { createLogger } from '../src/logger';
import { passengerCountLookup } from '../src/passengers/passenger-count.pipeline';
import { seedDemoData } from '../src/seed/seed';
import { parseDateRange, type InstantRange } from '../src/timeline/date-range';
import type { TimelineEventData } from '../src/timeline/timeline.service';
import { TimelineView } from '../src/timeline/timeline-event.type';
import { MeasurementWindow, measureLimit, youngCollections } from './timeline-measure';

export const BENCH_PASSENGERS_PER_FLIGHT = 100;
/** The month the flights fill (31 days). */
export const BENCH_MONTH = { start: '2026-05-01', end: '2026-05-31' };

async function main(flights: number): Promise<void> {
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret!',
    // A real MongoDB when the benchmark is given one (its own database: the flights are added to it).
    ...(process.env.MONGODB_URI ? { MONGODB_URI: process.env.MONGODB_URI } : {}),
    PUBLIC_HOST: 'bench.local',
    TIMEZONE: 'UTC',
    // The load generator is one client sending thousands of requests a minute.
    RATE_LIMIT_PER_MINUTE: '0',
    // Seeding writes batches of 500 flights with their lists: on a machine other work keeps busy one
    // took longer than the default 5 s and the server died before it served anything.
    DB_OPERATION_TIMEOUT_MS: '60000',
    // The change feed's and the webhooks' background polls (with the defaults about 6 % of a core on
    // this machine) would be billed to whichever request is running: the figures are the requests' own.
    CHANGE_FEED_POLL_MS: '60000',
    OUTBOX_SWEEP_INTERVAL_MS: '3600000',
    WEBHOOK_SWEEP_INTERVAL_MS: '3600000',
    // Settings a benchmark varies (JSON object of variables), e.g. a longer GRAPHQL_TIMEOUT_MS on a loaded machine.
    ...(JSON.parse(process.env.BENCH_SERVER_ENV ?? '{}') as Record<string, string>),
  });
  const logger = createLogger(config);
  const database = await openDatabase(config, logger);
  await database.ready;
  await seedDemoData(database.models, { today: new Date('2026-08-15T00:00:00Z'), flights: 0 });
  const db = database.connection.db!;
  await seedBenchFlights(db, flights);

  const gateway = await createApp({ config, logger, database });
  const { services } = gateway;
  const window = new MeasurementWindow();
  const app = express();
  const rangeOf = (req: express.Request) => parseDateRange(req.query.start, req.query.end, config.timezone);
  app.get('/bench/floor', async (req, res) => {
    const events = await services.timeline.events(TimelineView.CALENDAR, rangeOf(req), config.timezone);
    res.json(events.map(toLegacyTimelineEntry));
  });
  app.get('/bench/limit', async (req, res) => {
    const range = rangeOf(req);
    const answer = (await services.timeline.events(TimelineView.CALENDAR, range, config.timezone)).map(toLegacyTimelineEntry);
    const repetitions = Number(req.query.repetitions ?? 5);
    const documents = req.query.design === 'joined' ? await documentsTheJoinedReadReads(db, range) : await documentsTheRequestReads(db, range);
    res.json(measureLimit(documents, answer, repetitions));
  });
  // A full collection (the benchmark starts this process with --expose-gc): each window pays for
  // its own garbage, not for a major collection owed by the window before it, which on a heap
  // holding the engine's millions of passenger records costs hundreds of milliseconds.
  app.post('/bench/settle', async (_req, res) => {
    await settledHeap();
    res.json({ ok: true });
  });
  // ?settled=1: the caller settled the heap and then warmed the server up with a few requests, so
  // only their young garbage is cleared (young collections: a full one could shrink the young
  // generation the warm-up grew again). Otherwise the heap is settled here.
  // ?steady=1: nothing is collected, the window starts on the heap as the load before it left it
  // (the timeline-scale benchmark's steady-state part).
  app.post('/bench/window/start', async (req, res) => {
    if (req.query.steady !== '1') {
      if (req.query.settled === '1') youngCollections();
      else await settledHeap();
    }
    window.start({ sampleRss: req.query.rss === '1' });
    res.json({ ok: true });
  });
  app.post('/bench/window/stop', (req, res) => {
    res.json(window.stop({ collect: req.query.steady !== '1' }));
  });
  // A CPU profile of the requests in between (for finding where the time goes; not used by the benchmark's figures).
  const inspector = new Session();
  inspector.connect();
  const post = (method: string) => new Promise<unknown>((resolve, reject) => inspector.post(method, (error, result) => (error ? reject(error) : resolve(result))));
  // ?interval=<µs>: V8's sampling interval (1000 by default; a request of a millisecond or two wants 50 or 100).
  app.post('/bench/profile/start', async (req, res) => {
    await post('Profiler.enable');
    if (req.query.interval) await new Promise<void>((resolve, reject) => inspector.post('Profiler.setSamplingInterval', { interval: Number(req.query.interval) }, (error) => (error ? reject(error) : resolve())));
    await post('Profiler.start');
    res.json({ ok: true });
  });
  app.post('/bench/profile/stop', async (_req, res) => {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    res.json(profile);
  });
  // Where the allocation comes from: V8's sampling heap profiler, every allocation sampled with its stack.
  app.post('/bench/heap-profile/start', async (_req, res) => {
    await post('HeapProfiler.enable');
    await new Promise<void>((resolve, reject) =>
      inspector.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }, (error) => (error ? reject(error) : resolve())),
    );
    res.json({ ok: true });
  });
  app.post('/bench/heap-profile/stop', async (_req, res) => {
    const { profile } = (await post('HeapProfiler.stopSampling')) as { profile: unknown };
    res.json(profile);
  });
  // The service's own HTTP server (time limits, error answers), as main.ts listens with it. The
  // benchmark's routes are dispatched by path before the service sees the request, so the service's
  // requests pass through its own app alone, as in production (not an Express app wrapped in another).
  const server = createHttpServer((req, res) => (req.url?.startsWith('/bench/') ? app(req, res) : gateway.app(req, res)), config, logger);
  server.listen(0, '127.0.0.1', async () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const token = await mintToken(config.auth, { sub: 'bench', scope: ['timeline:read'], ttlSeconds: 3600 });
    process.stdout.write(`READY ${JSON.stringify({ port, token })}\n`);
  });
}

/**
 * A full collection, then a wait until the process is quiet: V8's helper threads sweep (and may
 * compact) after it, for longer on the engine's large heap and a busy machine, and their CPU time
 * is the process's. A fixed 250 ms wait was not always enough: a window of a few milliseconds
 * (the one-day limit) was then billed several milliseconds of sweeping.
 */
async function settledHeap(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return;
  gc();
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  await sleep(100);
  // Quiet: less than 1 ms of CPU in 50 ms (the timer's own wake-up costs a few microseconds); at most 3 s.
  for (let step = 0; step < 60; step += 1) {
    const before = process.cpuUsage();
    await sleep(50);
    const used = process.cpuUsage(before);
    if (used.user + used.system < 1000) return;
  }
}

/**
 * The documents a calendar request for `range` reads, as the service first read them (issue 14's
 * definition of the limit): the flights with the service's projection, one `{flightId,
 * passengerCount}` per flight with a list, and the airports and resources the flights name.
 */
async function documentsTheRequestReads(db: Db, range: InstantRange): Promise<Document[]> {
  const flights = await db.collection('flights').find(overlapFilter(range), { projection: FLIGHT_PROJECTION }).sort({ 'departure.at': 1, flightId: 1 }).toArray();
  const ids = flights.map((flight) => flight.flightId as number);
  const icaos = [...new Set(flights.flatMap((flight) => [flight.departure.icao as string, flight.arrival.icao as string]))];
  const resourceIds = [...new Set(flights.map((flight) => flight.resourceId as number))];
  const [counts, airports, resources] = await Promise.all([
    db.collection('passenger_lists').find({ flightId: { $in: ids } }, { projection: { _id: 0, flightId: 1, passengerCount: 1 } }).toArray(),
    db.collection('airports').find({ icao: { $in: icaos } }, { projection: { _id: 0, icao: 1, iata: 1, city: 1, country: 1, countryTag: 1 } }).toArray(),
    db.collection('resources').find({ resourceId: { $in: resourceIds } }, { projection: { _id: 0, resourceId: 1, colours: 1 } }).toArray(),
  ]);
  return [...flights, ...counts, ...airports, ...resources];
}

/**
 * The documents the request reads since issue 14: the flights, each with its passenger count
 * joined (`passengerList: [{passengerCount}]`, one aggregate), and the airports and resources.
 */
async function documentsTheJoinedReadReads(db: Db, range: InstantRange): Promise<Document[]> {
  const reply = await db.command({
    aggregate: 'flights',
    pipeline: [
      { $match: overlapFilter(range) },
      { $sort: { 'departure.at': 1, flightId: 1 } },
      { $project: FLIGHT_PROJECTION },
      passengerCountLookup('passenger_lists', 'flightId', 'passengerList'),
    ],
    cursor: { batchSize: 1_000_000 },
  });
  const flights = reply.cursor.firstBatch as Document[];
  const others = await documentsTheRequestReads(db, range);
  return [...flights, ...others.filter((document) => !('flightId' in document))];
}

/** `count` flights spread evenly over May 2026 and a 100-passenger list on each, through the driver. */
export async function seedBenchFlights(db: Db, count: number): Promise<void> {
  const airports = ['LIRF', 'LIML', 'LPPT', 'LGAV', 'LEBL', 'LFMN', 'EGGW', 'LSGG'];
  const start = Date.parse(`${BENCH_MONTH.start}T00:00:00Z`);
  const step = Math.floor((31 * 24 * 3600 * 1000 - 4 * 3600 * 1000) / count);
  const flights = Array.from({ length: count }, (_, index) => ({
    flightId: 100_000 + index,
    flightNumber: `BNC${index}`,
    resourceId: 1 + (index % 7),
    departure: { icao: airports[index % airports.length], at: new Date(start + index * step) },
    arrival: { icao: airports[(index + 3) % airports.length], at: new Date(start + index * step + 2 * 3600 * 1000) },
  }));
  for (let offset = 0; offset < count; offset += 1000) await db.collection('flights').insertMany(flights.slice(offset, offset + 1000));
  const passengers = Array.from({ length: BENCH_PASSENGERS_PER_FLIGHT }, (_, index) => ({
    id: index + 1, surname: 'ROSSI', name: `PASSENGER ${index + 1}`, luogonascita: 'IT', nazionalita: 'IT', typedoc: 'P',
    numberdoc: `YA${1_000_000 + index}`, date_born: '1980-01-01', scadenza: '2030-01-01', issuingstate: 'IT',
    email: null, phone: null, is_carring_infant: false, gender: 'M', parent_id: null,
  }));
  for (let offset = 0; offset < count; offset += 500) {
    await db.collection('passenger_lists').insertMany(
      flights.slice(offset, offset + 500).map((flight) => ({ flightId: flight.flightId, version: 1, passengers, passengerCount: passengers.length, history: [], requests: [] })),
    );
  }
}

/** An entry as the REST facade answers it (its GraphQL operation aliases the fields to these names). */
function toLegacyTimelineEntry(entry: TimelineEventData) {
  return {
    resourceId: entry.resourceId,
    flight_id: entry.flightId,
    flight_number: entry.flightNumber,
    backgroundColor: entry.backgroundColor,
    textColor: entry.textColor,
    borderColor: entry.borderColor,
    start: entry.start,
    end: entry.end,
    dep: entry.dep,
    arr: entry.arr,
    url: entry.url,
    api_version: entry.apiVersion,
    passengers: entry.passengers,
  };
}

if (require.main === module) {
  main(Number(process.argv[2] ?? 5000)).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
