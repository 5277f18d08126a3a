import { ApolloClient, HttpLink, InMemoryCache, gql, type TypedDocumentNode } from '@apollo/client';
import { Client, cacheExchange, fetchExchange } from '@urql/core';
import UploadHttpLink from 'apollo-upload-client/UploadHttpLink.mjs';
import { PassengerListDocument, PushPassengerListDocument } from '../../src/graphql/generated/operations';
import { buildPassengerWorkbook, parsedPassenger, passenger } from '../helpers/passenger-workbook';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import { listen, recordingFetch } from './listening-app';

/*
 * The libraries themselves (Apollo Client 4 with its InMemoryCache and apollo-upload-client, urql
 * with its defaults), against createApp listening on a port, each given nothing but the token.
 */

interface FlightPassengers {
  flight: { __typename: 'Flight'; id: string; passengers: { __typename: 'Passenger'; id: string; recordId: number; surname: string; name: string }[] } | null;
}
const FLIGHT_PASSENGERS: TypedDocumentNode<FlightPassengers, { id: number }> = gql`
  query FlightPassengers($id: Int!) {
    flight(id: $id) {
      id
      passengers {
        id
        recordId
        surname
        name
      }
    }
  }
`;

describe('real GraphQL clients with only a bearer token', () => {
  let testApp: TestApp;
  let server: { url: string; close(): Promise<void> };
  let endpoint: string;
  let authorization: string;
  const flights: number[] = [];

  beforeAll(async () => {
    testApp = await startTestApp('graphql_clients');
    await createReferenceData(testApp);
    // Two flights whose lists both number their records from 1, with different people.
    for (const [day, people] of [
      ['2026-12-01', [['Rossi', 'Mario'], ['Bianchi', 'Anna']]],
      ['2026-12-02', [['Verdi', 'Luca'], ['Neri', 'Sara'], ['Galli', 'Ugo']]],
    ] as const) {
      const flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: `${day}T09:00:00Z`, arrivalAt: `${day}T10:10:00Z` });
      const created = people.map(([surname, name], index) => passengerRecord(index + 1, { surname, name, numberdoc: `YB${flightId}${index}` }));
      const pushed = await testApp.graphql(PushPassengerListDocument, { flightId, changes: { created, modified: [], deleted: [] } as never, expectedVersion: null, expectedVersions: null, idempotencyKey: null });
      expect(pushed.body.errors).toBeUndefined();
      flights.push(flightId);
    }
    server = await listen(testApp.app);
    endpoint = `${server.url}/graphql`;
    authorization = `Bearer ${await testApp.token()}`;
  });
  afterAll(async () => {
    await server?.close();
    await testApp?.close();
  });

  /** The server's own answer, through the test helper (no client cache involved). */
  const serverPassengers = async (flightId: number) => {
    const { body } = await testApp.graphql(PassengerListDocument, { flightId });
    return body.data!.passengerList.passengers.map((record) => ({ recordId: record.id, surname: record.surname, name: record.name }));
  };
  const shown = (data: FlightPassengers | undefined) => data!.flight!.passengers.map(({ recordId, surname, name }) => ({ recordId, surname, name }));

  describe('Apollo Client with its default InMemoryCache', () => {
    it('shows each flight its own passengers when reading flight 1, then 2, then 1 again', async () => {
      const client = new ApolloClient({ link: new HttpLink({ uri: endpoint, headers: { Authorization: authorization } }), cache: new InMemoryCache() });
      const [first, second] = flights;
      for (const flightId of [first, second, first]) {
        const { data } = await client.query({ query: FLIGHT_PASSENGERS, variables: { id: flightId } });
        expect(shown(data)).toEqual(await serverPassengers(flightId));
      }
      // The cache holds one entry per record of each flight: 2 + 3, none merged.
      const passengerKeys = Object.keys(client.cache.extract() as Record<string, unknown>).filter((key) => key.startsWith('Passenger:'));
      expect(passengerKeys.sort()).toEqual([`Passenger:${first}:1`, `Passenger:${first}:2`, `Passenger:${second}:1`, `Passenger:${second}:2`, `Passenger:${second}:3`].sort());
    });

    it('sends queries as GET with useGETForQueries, and the server answers them', async () => {
      const recorder = recordingFetch();
      const client = new ApolloClient({
        link: new HttpLink({ uri: endpoint, headers: { Authorization: authorization }, useGETForQueries: true, fetch: recorder.fetch }),
        cache: new InMemoryCache(),
      });
      const { data, error } = await client.query({ query: FLIGHT_PASSENGERS, variables: { id: flights[1] } });
      expect(error).toBeUndefined();
      expect(shown(data)).toEqual(await serverPassengers(flights[1]));
      expect(recorder.sent.map((request) => request.method)).toEqual(['GET']);
      expect(recorder.sent[0].headers.get('apollo-require-preflight')).toBeNull();
    });

    it('uploads a spreadsheet through apollo-upload-client with no preflight header, and keeps two previews apart', async () => {
      const recorder = recordingFetch();
      const client = new ApolloClient({
        link: new UploadHttpLink({ uri: endpoint, headers: { Authorization: authorization }, fetch: recorder.fetch }),
        cache: new InMemoryCache(),
      });
      const UPLOAD = gql`
        mutation Upload($flightId: Int!, $file: Upload!) {
          uploadPassengerList(flightId: $flightId, file: $file) {
            recordId
            idvolo
            surname
            name
            row_number
          }
        }
      ` as TypedDocumentNode<{ uploadPassengerList: { recordId: number | null; idvolo: number; surname: string; name: string; row_number: number }[] }, { flightId: number; file: Blob }>;
      const sheets = [
        [passenger({ surname: 'Conti', name: 'Elena' }), passenger({ surname: 'Fabbri', name: 'Paolo', numberdoc: 'YA7654321' })],
        [passenger({ surname: 'Moretti', name: 'Ines' })],
      ];
      const answers = [];
      for (const [index, flightId] of flights.entries()) {
        const file = new Blob([await buildPassengerWorkbook(sheets[index])], { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });
        const { data, error } = await client.mutate({ mutation: UPLOAD, variables: { flightId, file } });
        expect(error).toBeUndefined();
        answers.push(data!.uploadPassengerList.map(({ recordId, idvolo, surname, name, row_number }) => ({ recordId, idvolo, surname, name, row_number })));
      }
      expect(answers).toEqual([
        [parsedPassenger(flights[0], { surname: 'CONTI', name: 'ELENA', row_number: 1 }), parsedPassenger(flights[0], { surname: 'FABBRI', name: 'PAOLO', row_number: 2 })].map(({ idvolo, surname, name, row_number }) => ({ recordId: null, idvolo, surname, name, row_number })),
        [{ recordId: null, idvolo: flights[1], surname: 'MORETTI', name: 'INES', row_number: 1 }],
      ]);
      expect(recorder.sent.map((request) => [request.method, request.headers.get('content-type')?.split(';')[0], request.headers.get('apollo-require-preflight')])).toEqual([
        ['POST', 'multipart/form-data', null],
        ['POST', 'multipart/form-data', null],
      ]);
    });
  });

  describe('urql with its defaults', () => {
    const urql = (fetcher: typeof fetch, token: string | null = authorization) =>
      new Client({ url: endpoint, exchanges: [cacheExchange, fetchExchange], fetch: fetcher, fetchOptions: token ? { headers: { Authorization: token } } : {} });

    it('runs queries, which it sends as GET without a preflight header', async () => {
      const recorder = recordingFetch();
      const result = await urql(recorder.fetch).query(FLIGHT_PASSENGERS, { id: flights[0] }).toPromise();
      expect(result.error).toBeUndefined();
      expect(shown(result.data)).toEqual(await serverPassengers(flights[0]));
      expect(recorder.sent.map((request) => [request.method, request.headers.get('apollo-require-preflight'), request.headers.get('x-apollo-operation-name')])).toEqual([['GET', null, null]]);
    });

    it('runs mutations (POST) and reads their result', async () => {
      const result = await urql(fetch)
        .mutation(PushPassengerListDocument, { flightId: flights[1], changes: { created: [], modified: [{ id: 3, name: 'Ugo Maria' }], deleted: [] } as never, expectedVersion: 1, expectedVersions: null, idempotencyKey: null })
        .toPromise();
      expect(result.error).toBeUndefined();
      expect(result.data!.pushPassengerList).toMatchObject({ status: 'ok', flight_id: flights[1], version: 2, modified: 1 });
      expect((await serverPassengers(flights[1]))[2]).toEqual({ recordId: 3, surname: 'GALLI', name: 'UGO MARIA' });
    });

    it('gets a refusal before Apollo (a body over JSON_MAX_BYTES) in the GraphQL response format', async () => {
      const big = 'x'.repeat(testApp.config.limits.jsonMaxBytes);
      const result = await urql(fetch).query(gql`query Big($s: String) { airports(search: $s) { icao } }`, { s: big }).toPromise();
      expect(result.error?.graphQLErrors.map((error) => error.extensions.code)).toEqual(['PAYLOAD_TOO_LARGE']);
      expect(result.error?.response?.status).toBe(413);
    });

    it('without a token, still meets CSRF prevention on a GET (no Authorization: no exemption)', async () => {
      const result = await urql(fetch, null).query(gql`query Schema { __schema { queryType { name } } }`, {}).toPromise();
      expect(result.error?.response?.status).toBe(400);
      expect(result.error?.message).toContain('Cross-Site Request Forgery');
    });
  });
});
