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
