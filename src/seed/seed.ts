import { DateTime } from 'luxon';
import { advanceSequence } from '../db/counter.model';
import type { Models } from '../models';
import type { FlightDocument } from '../flights/flight.model';
import { DEMO_AIRPORTS, type DemoAirport } from './demo-airports';
import { demoPassengers, pick, seededRandom } from './demo-passengers';
import { DEMO_RESOURCES } from './demo-resources';

export interface SeedOptions {
  /** The day the demo schedule is centred on (flights from 30 days before to 60 days after). */
  today?: Date;
  /** Roughly how many flights to create. */
  flights?: number;
}

export interface SeedSummary {
  airports: number;
  resources: number;
  flights: number;
  passengerLists: number;
}

const CRUISE_KMH = 750;
const TAXI_AND_CLIMB_MINUTES = 25;

/**
 * Loads the demo data. Idempotent: airports and resources are upserted by code and id, flights and
 * passenger lists by flight id with `$setOnInsert`, so running it twice changes nothing.
 */
export async function seedDemoData(models: Models, options: SeedOptions = {}): Promise<SeedSummary> {
  const today = DateTime.fromJSDate(options.today ?? new Date(), { zone: 'UTC' }).startOf('day');
  const flightTarget = options.flights ?? 200;
  const random = seededRandom(20261121);

  await models.airports.bulkWrite(
    DEMO_AIRPORTS.map(({ lat: _lat, lon: _lon, ...airport }) => ({
      updateOne: { filter: { icao: airport.icao }, update: { $set: airport }, upsert: true },
    })),
  );
  await models.resources.bulkWrite(
    DEMO_RESOURCES.map((resource) => ({
      updateOne: { filter: { resourceId: resource.resourceId }, update: { $set: resource }, upsert: true },
    })),
  );

  const flights = demoSchedule(random, today, flightTarget);
  const inserted = await models.flights.bulkWrite(
    flights.map((flight) => ({
      updateOne: { filter: { flightId: flight.flightId }, update: { $setOnInsert: flight }, upsert: true },
    })),
  );
  // A demo flight deleted earlier left a tombstone list that refuses pushes; its new flight starts clean.
  const reinserted = Object.keys(inserted.upsertedIds).map((index) => flights[Number(index)].flightId);
  if (reinserted.length) await models.passengerLists.deleteMany({ flightId: { $in: reinserted }, deletedAt: { $ne: null } });
  await advanceSequence(models.counters, 'flight', flights.length);
  await advanceSequence(models.counters, 'resource', DEMO_RESOURCES.length);

  const lists = flights
    .filter(() => random() < 0.4)
    .map((flight) => {
      const passengers = demoPassengers(random, flight.departure.at, 2 + Math.floor(random() * 9));
      return {
        flightId: flight.flightId,
        version: 1,
        passengers,
        passengerCount: passengers.length,
        history: [],
        requests: [],
        updatedBy: 'seed',
      };
    });
  await models.passengerLists.bulkWrite(
    lists.map((list) => ({
      updateOne: { filter: { flightId: list.flightId }, update: { $setOnInsert: list }, upsert: true },
    })),
  );

  return {
    airports: DEMO_AIRPORTS.length,
    resources: DEMO_RESOURCES.length,
    flights: flights.length,
    passengerLists: lists.length,
  };
}

/** Each aircraft flies a chain of legs, starting where the previous leg landed. */
function demoSchedule(random: () => number, today: DateTime, target: number): FlightDocument[] {
  const perResource = Math.ceil(target / DEMO_RESOURCES.length);
  const windowStart = today.minus({ days: 30 });
  const windowDays = 90;
  const flights: Omit<FlightDocument, 'flightId'>[] = [];
  for (const resource of DEMO_RESOURCES) {
    let at: DemoAirport = pick(random, DEMO_AIRPORTS);
    const dayStep = windowDays / perResource;
    for (let leg = 0; leg < perResource && flights.length < target; leg += 1) {
      const to = pickDestination(random, at);
      const day = windowStart.plus({ days: Math.floor(leg * dayStep + random() * dayStep * 0.6) });
      const departure = day.setZone(at.timezone, { keepLocalTime: true }).set({ hour: 6 + Math.floor(random() * 14), minute: [0, 15, 30, 45][Math.floor(random() * 4)] });
      const minutes = Math.round(distanceKm(at, to) / CRUISE_KMH * 60 + TAXI_AND_CLIMB_MINUTES);
      const operator = resource.registration.replace('-', '').slice(0, 3).toUpperCase();
      flights.push({
        flightNumber: `${operator}${100 + Math.floor(random() * 900)}`,
        resourceId: resource.resourceId,
        departure: { icao: at.icao, at: departure.toUTC().toJSDate() },
        arrival: { icao: to.icao, at: departure.plus({ minutes }).toUTC().toJSDate() },
      });
      at = to;
    }
  }
  flights.sort((a, b) => a.departure.at.getTime() - b.departure.at.getTime());
  return flights.map((flight, index) => ({ flightId: index + 1, ...flight }));
}

function pickDestination(random: () => number, from: DemoAirport): DemoAirport {
  for (;;) {
    const to = pick(random, DEMO_AIRPORTS);
    if (to.icao !== from.icao && to.city !== from.city) return to;
  }
}

function distanceKm(a: DemoAirport, b: DemoAirport): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}
