import type { GraphQLSchema } from 'graphql';
import { Environment, Network, RecordSource, Store, createOperationDescriptor, fetchQuery, type GraphQLResponse, type Variables } from 'relay-runtime';
import { gatewaySchema } from '../../src/graphql/schema';
import { PushPassengerListDocument } from '../../src/graphql/generated/operations';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import { listen } from './listening-app';
import { relayRequest } from './relay-artifact';

const FLIGHTS_QUERY = /* GraphQL */ `
  query RelayFlights($start: String!, $end: String!) {
    resources {
      __typename
      id
      resourceId
      title
    }
    flights(start: $start, end: $end) {
      __typename
      id
      flightId
      flightNumber
      resourceId
      resource {
        __typename
        id
        resourceId
        title
        registration
      }
      passengers {
        __typename
        id
        recordId
        surname
        name
      }
    }
  }
`;

const NODE_QUERY = /* GraphQL */ `
  query RelayNode($id: ID!) {
    node(id: $id) {
      __typename
      id
      ... on Flight {
        flightId
        flightNumber
      }
      ... on Resource {
        resourceId
        title
      }
      ... on Passenger {
        recordId
        surname
      }
    }
  }
`;

describe('Relay (relay-runtime) with its default store and getDataID', () => {
  let testApp: TestApp;
  let server: { url: string; close(): Promise<void> };
  let schema: GraphQLSchema;
  let authorization: string;
  const flightIds: number[] = [];
  const answers: unknown[] = [];

  /** A fresh environment whose network posts to the listening app and keeps each raw answer. */
  const environment = () =>
    new Environment({
      network: Network.create(async (params, variables) => {
        const response = await fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization },
          body: JSON.stringify({ query: params.text, variables }),
        });
        const body = (await response.json()) as GraphQLResponse;
        answers.push(body);
        return body;
      }),
      store: new Store(new RecordSource()),
    });

  const readBack = async (text: string, variables: Variables) => {
    const env = environment();
    const request = relayRequest(schema, text);
    answers.length = 0;
    await fetchQuery(env, request, variables).toPromise();
    const snapshot = env.lookup(createOperationDescriptor(request, variables).fragment);
    return { shown: snapshot.data, answered: (answers[0] as { data: unknown; errors?: unknown }) };
  };

  beforeAll(async () => {
    testApp = await startTestApp('relay_client');
    schema = await gatewaySchema();
    await createReferenceData(testApp);
    for (const [day, people] of [
      ['2026-12-01', [['Rossi', 'Mario'], ['Bianchi', 'Anna']]],
      ['2026-12-01', [['Verdi', 'Luca']]],
    ] as const) {
      const flightId = await createFlight(testApp, { resourceId: flightIds.length + 1, from: 'LIRF', to: 'LIML', departureAt: `${day}T09:00:00Z`, arrivalAt: `${day}T10:10:00Z` });
      const created = people.map(([surname, name], index) => passengerRecord(index + 1, { surname, name, numberdoc: `YR${flightId}${index}` }));
      const pushed = await testApp.graphql(PushPassengerListDocument, { flightId, changes: { created, modified: [], deleted: [] } as never, expectedVersion: null, expectedVersions: null, idempotencyKey: null });
      expect(pushed.body.errors).toBeUndefined();
      flightIds.push(flightId);
    }
    server = await listen(testApp.app);
    authorization = `Bearer ${await testApp.token()}`;
  });
  afterAll(async () => {
    await server?.close();
    await testApp?.close();
  });

  it('reads flights, their resources and passengers back from the store exactly as the server answered (flight 1 and resource 1 both present)', async () => {
    const { shown, answered } = await readBack(FLIGHTS_QUERY, { start: '2026-12-01', end: '2026-12-01' });
    expect(answered.errors).toBeUndefined();
    const data = answered.data as { flights: { flightId: number; passengers: unknown[] }[]; resources: { resourceId: number }[] };
    // The collision this guards against: per-type numbers made Flight 1 and Resource 1 one record.
    expect(data.flights.map((flight) => flight.flightId)).toContain(1);
    expect(data.resources.map((resource) => resource.resourceId)).toContain(1);
    expect(data.flights.map((flight) => flight.passengers.length)).toEqual([2, 1]);
    expect(shown).toEqual(answered.data);
  });

  it('refetches a Flight, a Resource and a Passenger with node(id:), each read back as answered', async () => {
    const ids = [`Flight:${flightIds[0]}`, 'Resource:1', `${flightIds[1]}:1`];
    const types: string[] = [];
    for (const id of ids) {
      const { shown, answered } = await readBack(NODE_QUERY, { id });
      expect(answered.errors).toBeUndefined();
      expect((answered.data as { node: { id: string } }).node.id).toBe(id);
      expect(shown).toEqual(answered.data);
      types.push((shown as { node: { __typename: string } }).node.__typename);
    }
    expect(types).toEqual(['Flight', 'Resource', 'Passenger']);
    const { shown } = await readBack(NODE_QUERY, { id: `${flightIds[1]}:1` });
    expect(shown).toEqual({ node: { __typename: 'Passenger', id: `${flightIds[1]}:1`, recordId: 1, surname: 'VERDI' } });
  });
});
