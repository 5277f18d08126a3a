import { CreateFlightDocument, UpsertAirportDocument, UpsertResourceDocument } from '../../src/graphql/generated/operations';
import type { TestApp } from './test-app';

export const AIRPORTS = {
  LIRF: { icao: 'LIRF', iata: 'FCO', city: 'Rome', country: 'Italy', countryTag: 'IT', timezone: 'Europe/Rome' },
  LIML: { icao: 'LIML', iata: 'LIN', city: 'Milan', country: 'Italy', countryTag: '', timezone: 'Europe/Rome' },
  LPPT: { icao: 'LPPT', iata: 'LIS', city: 'Lisbon', country: 'Portugal', countryTag: 'PT', timezone: 'Europe/Lisbon' },
  LGAV: { icao: 'LGAV', iata: 'ATH', city: 'Athens', country: 'Greece', countryTag: 'GR', timezone: 'Europe/Athens' },
} as const;

export const RESOURCES = [
  { id: 1, title: 'Citation XLS+', registration: 'I-FLYB', backgroundColor: 'steelblue', textColor: 'white', borderColor: 'navy' },
  { id: 2, title: 'Phenom 300E', registration: '9H-VJA', backgroundColor: 'darkorange', textColor: 'black', borderColor: 'chocolate' },
];

/** Creates the reference data through the GraphQL mutations, failing loudly on any error. */
export async function createReferenceData(testApp: TestApp): Promise<void> {
  for (const input of Object.values(AIRPORTS)) {
    const { body } = await testApp.graphql(UpsertAirportDocument, { input });
    if (body.errors) throw new Error(JSON.stringify(body.errors));
  }
  for (const input of RESOURCES) {
    const { body } = await testApp.graphql(UpsertResourceDocument, { input });
    if (body.errors) throw new Error(JSON.stringify(body.errors));
  }
}

export interface FlightSpec {
  flightNumber?: string;
  resourceId: number;
  from: keyof typeof AIRPORTS;
  to: keyof typeof AIRPORTS;
  departureAt: string;
  arrivalAt: string;
  backgroundColor?: string;
}

/** Creates a flight through `createFlight` and returns its id. */
export async function createFlight(testApp: TestApp, spec: FlightSpec): Promise<number> {
  const { body } = await testApp.graphql(CreateFlightDocument, {
    input: {
      flightNumber: spec.flightNumber ?? 'IFL100',
      resourceId: spec.resourceId,
      departureIcao: spec.from,
      departureAt: spec.departureAt,
      arrivalIcao: spec.to,
      arrivalAt: spec.arrivalAt,
      backgroundColor: spec.backgroundColor ?? null,
      textColor: null,
      borderColor: null,
    },
  });
  if (body.errors || !body.data) throw new Error(JSON.stringify(body.errors));
  return body.data.createFlight.flightId;
}

/**
 * `count` flights LIRF → LPPT spread over the 30 days from `from` (two hours each, resources 1 and 2
 * in turn), written straight to the collection in batches: the quick way to a timeline of megabytes.
 */
export async function insertManyFlights(testApp: TestApp, count: number, options: { from: string; firstId: number; numberPrefix: string }): Promise<void> {
  const start = Date.parse(`${options.from}T00:00:00Z`);
  const step = Math.floor((30 * 86_400_000) / count);
  const flights = Array.from({ length: count }, (_, index) => ({
    flightId: options.firstId + index,
    flightNumber: `${options.numberPrefix}${index}`,
    resourceId: 1 + (index % 2),
    departure: { icao: 'LIRF', at: new Date(start + index * step) },
    arrival: { icao: 'LPPT', at: new Date(start + index * step + 2 * 3_600_000) },
  }));
  const collection = testApp.database.connection.collection('flights');
  for (let offset = 0; offset < count; offset += 2000) await collection.insertMany(flights.slice(offset, offset + 2000));
}
