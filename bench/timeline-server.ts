/**
 * The server side of the timeline benchmark, run as a child process so the load generator does not
 * share its event loop: the real app on the embedded engine with 5,000 flights in May 2026 (100
 * passengers each), plus `/bench/floor`, a bare Express route that runs the same database query
 * through the same service and writes the same JSON: the cost of the data alone.
 */
import 'reflect-metadata';
import express from 'express';
import { toLegacyTimelineEntry } from '../rest-facade/timeline.routes';
import { createApp } from '../src/app';
import { mintToken } from '../src/auth';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/database';
import { createLogger } from '../src/logger';
import { seedDemoData } from '../src/seed/seed';
import { parseDateRange } from '../src/timeline/date-range';
import { TimelineView } from '../src/timeline/timeline-event.type';

export const BENCH_FLIGHTS = 5000;
export const BENCH_PASSENGERS_PER_FLIGHT = 100;
export const BENCH_RANGE = { start: '2026-05-01', end: '2026-05-31' };

async function main(): Promise<void> {
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret!',
    PUBLIC_HOST: 'bench.local',
    TIMEZONE: 'UTC',
    // The load generator is one client sending thousands of requests a minute.
    RATE_LIMIT_PER_MINUTE: '0',
  });
  const logger = createLogger(config);
  const database = await openDatabase(config, logger);
  await database.ready;
  await seedDemoData(database.models, { today: new Date("2026-08-15T00:00:00Z"), flights: 0 });
  await seedBenchFlights(database.connection.db!);

  const gateway = await createApp({ config, logger, database });
  const { services } = gateway;
  const app = express();
  app.get('/bench/floor', async (req, res) => {
    const range = parseDateRange(req.query.start, req.query.end, config.timezone);
    const events = await services.timeline.events(TimelineView.CALENDAR, range, config.timezone);
    res.json(events.map(toLegacyTimelineEntry));
  });
  app.use(gateway.app);
  const server = app.listen(0, '127.0.0.1', async () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const token = await mintToken(config.auth, { sub: 'bench', scope: ['timeline:read'], ttlSeconds: 3600 });
    process.stdout.write(`READY ${JSON.stringify({ port, token })}\n`);
  });
}

/** 5,000 flights spread over May 2026 and a 100-passenger list on each, through the driver. */
async function seedBenchFlights(db: import('mongodb').Db): Promise<void> {
  const airports = ['LIRF', 'LIML', 'LPPT', 'LGAV', 'LEBL', 'LFMN', 'EGGW', 'LSGG'];
  const start = Date.parse('2026-05-01T00:00:00Z');
  const step = Math.floor((31 * 24 * 3600 * 1000 - 4 * 3600 * 1000) / BENCH_FLIGHTS);
  const flights = Array.from({ length: BENCH_FLIGHTS }, (_, index) => ({
    flightId: 100_000 + index,
    flightNumber: `BNC${index}`,
    resourceId: 1 + (index % 7),
    departure: { icao: airports[index % airports.length], at: new Date(start + index * step) },
    arrival: { icao: airports[(index + 3) % airports.length], at: new Date(start + index * step + 2 * 3600 * 1000) },
  }));
  await db.collection('flights').insertMany(flights);
  const passengers = Array.from({ length: BENCH_PASSENGERS_PER_FLIGHT }, (_, index) => ({
    id: index + 1, surname: 'ROSSI', name: `PASSENGER ${index + 1}`, luogonascita: 'IT', nazionalita: 'IT', typedoc: 'P',
    numberdoc: `YA${1_000_000 + index}`, date_born: '1980-01-01', scadenza: '2030-01-01', issuingstate: 'IT',
    email: null, phone: null, is_carring_infant: false, gender: 'M', parent_id: null,
  }));
  for (let offset = 0; offset < BENCH_FLIGHTS; offset += 500) {
    await db.collection('passenger_lists').insertMany(
      flights.slice(offset, offset + 500).map((flight) => ({ flightId: flight.flightId, version: 1, passengers, passengerCount: passengers.length, history: [], requests: [] })),
    );
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
