import request from 'supertest';
import { PushPassengerListDocument } from '../../src/graphql/generated/operations';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

const NODE = 'query Node($id: ID!) { node(id: $id) { __typename id ... on Flight { flightId } ... on Resource { resourceId } ... on Passenger { recordId } } }';

describe('Query.node and global ids', () => {
  let testApp: TestApp;
  let flightId: number;

  const node = async (id: string, token?: string | null) => {
    const call = request(testApp.app).post('/graphql').set('Content-Type', 'application/json');
    if (token !== null) call.set('Authorization', `Bearer ${token ?? (await testApp.token())}`);
    return call.send({ query: NODE, variables: { id } });
  };

  beforeAll(async () => {
    testApp = await startTestApp('graphql_node');
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 2, from: 'LIRF', to: 'LIML', departureAt: '2026-12-01T09:00:00Z', arrivalAt: '2026-12-01T10:10:00Z' });
    const pushed = await testApp.graphql(PushPassengerListDocument, { flightId, changes: { created: [passengerRecord(4)], modified: [], deleted: [] } as never, expectedVersion: null, expectedVersions: null, idempotencyKey: null });
    expect(pushed.body.errors).toBeUndefined();
  });
  afterAll(() => testApp.close());

  it('finds each type by the id it reads, with the number in flightId, resourceId or recordId', async () => {
    const answers = await Promise.all([`Flight:${flightId}`, 'Resource:2', `${flightId}:4`].map((id) => node(id)));
    expect(answers.map((answer) => answer.body.data.node)).toEqual([
      { __typename: 'Flight', id: `Flight:${flightId}`, flightId },
      { __typename: 'Resource', id: 'Resource:2', resourceId: 2 },
      { __typename: 'Passenger', id: `${flightId}:4`, recordId: 4 },
    ]);
  });

  it('answers null, without an error, for an id that is malformed or names nothing', async () => {
    for (const id of ['Flight:987654', 'Resource:99', `${flightId}:5`, '987654:1', 'Airport:LIRF', 'flight:1', '1', '', 'Flight:1:2', 'Flight:99999999999999999999']) {
      const { status, body } = await node(id);
      expect([id, status, body]).toEqual([id, 200, { data: { node: null } }]);
    }
  });

  it('demands the scope of the type the id names, and a token even for a malformed id', async () => {
    const timelineOnly = await testApp.token(['timeline:read']);
    const passengersOnly = await testApp.token(['passengers:read']);
    expect((await node(`Flight:${flightId}`, timelineOnly)).body.data.node.flightId).toBe(flightId);
    const refusals = await Promise.all([
      node(`${flightId}:4`, timelineOnly),
      node(`Flight:${flightId}`, passengersOnly),
      node('Resource:2', passengersOnly),
      node('bogus', null),
      node(`Flight:${flightId}`, null),
    ]);
    expect(refusals.map((answer) => [answer.status, answer.body.errors?.[0]?.extensions?.code])).toEqual([
      [403, 'FORBIDDEN'],
      [403, 'FORBIDDEN'],
      [403, 'FORBIDDEN'],
      [401, 'UNAUTHENTICATED'],
      [401, 'UNAUTHENTICATED'],
    ]);
    expect((await node(`${flightId}:4`, passengersOnly)).body.data.node.recordId).toBe(4);
  });
});
