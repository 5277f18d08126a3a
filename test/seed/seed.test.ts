import type { Db } from 'mongodb';
import { loadConfig } from '../../src/config';
import { openDatabase, type Database } from '../../src/models';
import { createLogger } from '../../src/logger';
import { seedDemoData } from '../../src/seed/seed';
import { testDatabaseUri, uniqueDatabaseName } from '../helpers/database';

describe('demo data', () => {
  let database: Database;
  let db: Db;
  const today = new Date('2026-11-21T10:00:00Z');

  beforeAll(async () => {
    const config = loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(32) });
    database = await openDatabase(config, createLogger(config), { uri: testDatabaseUri(uniqueDatabaseName('seed')) });
    await database.ready;
    db = database.connection.db!;
  });
  afterAll(async () => {
    await db.dropDatabase();
    await database.close();
  });

  const counts = async () =>
    Object.fromEntries(await Promise.all(['airports', 'resources', 'flights', 'passenger_lists'].map(async (name) => [name, await db.collection(name).countDocuments()])));

  it('loads realistic airports, aircraft, flights around today and passenger lists, and a second run changes nothing', async () => {
    const summary = await seedDemoData(database.models, { today });
    const first = await counts();
    expect(first).toEqual({ airports: summary.airports, resources: summary.resources, flights: 200, passenger_lists: summary.passengerLists });
    expect(first.airports).toBeGreaterThanOrEqual(30);
    expect(first.resources).toBeGreaterThanOrEqual(6);
    const snapshot = await db.collection('flights').find({}, { projection: { _id: 0, createdAt: 0, updatedAt: 0 } }).sort({ flightId: 1 }).toArray();

    await seedDemoData(database.models, { today });
    expect(await counts()).toEqual(first);
    expect(await db.collection('flights').find({}, { projection: { _id: 0, createdAt: 0, updatedAt: 0 } }).sort({ flightId: 1 }).toArray()).toEqual(snapshot);

    const departures = snapshot.map((flight) => (flight.departure.at as Date).getTime());
    expect(Math.min(...departures)).toBeGreaterThanOrEqual(today.getTime() - 31 * 86_400_000);
    expect(Math.max(...departures)).toBeLessThanOrEqual(today.getTime() + 61 * 86_400_000);
    for (const flight of snapshot) {
      expect(flight.arrival.at.getTime()).toBeGreaterThan(flight.departure.at.getTime());
      expect(flight.departure.icao).not.toBe(flight.arrival.icao);
    }
    const airport = await db.collection('airports').findOne({ icao: 'LIRF' });
    expect(airport).toMatchObject({ iata: 'FCO', city: 'Rome', country: 'Italy', countryTag: 'IT', timezone: 'Europe/Rome' });
    const list = await db.collection('passenger_lists').findOne({});
    expect(list!.passengerCount).toBe(list!.passengers.length);
    // The counter continues after the seeded ids: the next flight gets 201.
    expect((await db.collection('counters').findOne({ _id: 'flight' as never }))!.seq).toBe(200);
  });

  it('gives a demo flight deleted since the last run a fresh passenger list (no tombstone left refusing pushes)', async () => {
    await seedDemoData(database.models, { today });
    const flightId = (await db.collection('passenger_lists').findOne({ deletedAt: null }))!.flightId as number;
    await db.collection('flights').deleteOne({ flightId });
    await db.collection('passenger_lists').updateOne({ flightId }, { $set: { deletedAt: new Date(), passengers: [], passengerCount: 0 } });

    await seedDemoData(database.models, { today });
    expect(await db.collection('flights').countDocuments({ flightId })).toBe(1);
    const list = await db.collection('passenger_lists').findOne({ flightId });
    expect(list?.deletedAt ?? null).toBeNull();
  });
});
