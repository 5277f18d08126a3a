import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql, type TypedDocumentNode } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import type { Client } from 'graphql-ws';
import request from 'supertest';
import { DeleteFlightDocument } from '../../src/graphql/generated/operations';
import { passengerRecord } from '../helpers/passengers';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import { startLiveApp, subscriptionsListening, wsClient, type LiveApp } from './live-app';

/*
 * passengerListChanged through Apollo Client 4 set up as its documentation says: one client, a
 * split link sending subscriptions through GraphQLWsLink (graphql-ws) and everything else through
 * HttpLink. Pushes go through that same client (GraphQL) and through the REST facade.
 */

interface Update {
  flightId: number;
  version: number;
  created: number[];
  modified: number[];
  deleted: number[];
  passengerCount: number;
  seq: number;
  at: string;
}

const PASSENGER_LIST_CHANGED: TypedDocumentNode<{ passengerListChanged: Update }, { flightId: number }> = gql`
  subscription ListWatch($flightId: Int!) {
    passengerListChanged(flightId: $flightId) {
      flightId
      version
      created
      modified
      deleted
      passengerCount
      seq
      at
    }
  }
`;

const PUSH: TypedDocumentNode<{ pushPassengerList: { version: number } }, { flightId: number; changes: unknown }> = gql`
  mutation Push($flightId: Int!, $changes: PassengerListChangesInput!) {
    pushPassengerList(flightId: $flightId, changes: $changes) {
      version
    }
  }
`;

type Outcome = { kind: 'next'; value: ApolloClient.SubscribeResult<{ passengerListChanged: Update }> } | { kind: 'error'; error: unknown } | { kind: 'complete' };

/** An Apollo subscription's notifications, read one at a time. */
class Notifications {
  private readonly outcomes: Outcome[] = [];
  private readonly waiters: Array<(outcome: Outcome) => void> = [];
  readonly stop: () => void;

  constructor(apollo: ApolloClient, flightId: number) {
    const subscription = apollo.subscribe({ query: PASSENGER_LIST_CHANGED, variables: { flightId } }).subscribe({
      next: (value) => this.push({ kind: 'next', value }),
      error: (error) => this.push({ kind: 'error', error }),
      complete: () => this.push({ kind: 'complete' }),
    });
    this.stop = () => subscription.unsubscribe();
  }

  next(): Promise<Outcome> {
    const queued = this.outcomes.shift();
    return queued ? Promise.resolve(queued) : new Promise((resolve) => this.waiters.push(resolve));
  }

  async update(): Promise<Update> {
    const outcome = await this.next();
    if (outcome.kind !== 'next' || !outcome.value.data) throw new Error(`expected an update, got ${JSON.stringify(outcome)}`);
    return outcome.value.data.passengerListChanged;
  }

  private push(outcome: Outcome): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(outcome);
    else this.outcomes.push(outcome);
  }
}

describe('passengerListChanged through Apollo Client 4 (GraphQLWsLink)', () => {
  let live: LiveApp;
  let token: string;
  const clients: Client[] = [];
  const watching: Notifications[] = [];

  beforeAll(async () => {
    live = await startLiveApp('subscriptions_passengers');
    await createReferenceData(live.testApp);
    token = await live.testApp.token();
  });
  afterEach(() => watching.splice(0).forEach((notifications) => notifications.stop()));
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await live?.close();
  });

  /** Apollo's documented split: subscriptions over WebSocket, the rest over HTTP; both with the token. */
  const apolloClient = (bearerToken = token) => {
    const wsClientOfLink = wsClient(live.wsUrl, { authorization: `Bearer ${bearerToken}` });
    clients.push(wsClientOfLink);
    const link = ApolloLink.split(
      ({ query }) => {
        const definition = getMainDefinition(query);
        return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
      },
      new GraphQLWsLink(wsClientOfLink),
      new HttpLink({ uri: `${live.url}/graphql`, headers: { Authorization: `Bearer ${bearerToken}` } }),
    );
    return { apollo: new ApolloClient({ link, cache: new InMemoryCache() }), ws: wsClientOfLink };
  };
  const watch = async (client: ReturnType<typeof apolloClient>, flightId: number) => {
    const notifications = new Notifications(client.apollo, flightId);
    watching.push(notifications);
    await subscriptionsListening(client.ws);
    return notifications;
  };
  const newFlight = () => createFlight(live.testApp, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-09-01T08:00:00Z', arrivalAt: '2026-09-01T09:00:00Z' });

  it('delivers each push of the watched flight, through GraphQL or REST, with version, record ids and count', async () => {
    const client = apolloClient();
    const [flightId, otherFlight] = [await newFlight(), await newFlight()];
    const updates = await watch(client, flightId);

    const first = await client.apollo.mutate({ mutation: PUSH, variables: { flightId, changes: { created: [passengerRecord(1), passengerRecord(2), passengerRecord(3)], modified: [], deleted: [] } } });
    await client.apollo.mutate({ mutation: PUSH, variables: { flightId: otherFlight, changes: { created: [passengerRecord(1)], modified: [], deleted: [] } } });
    const rest = await request(live.url)
      .post(`/api/broker/v0/flight/${flightId}/passenger`)
      .set('Authorization', `Bearer ${token}`)
      .send({ created: [passengerRecord(4)], modified: [passengerRecord(2, { surname: 'Bianchi' })], deleted: [1] });
    expect(rest.status).toBe(200);

    const created = await updates.update();
    expect(created).toEqual({ __typename: 'PassengerListUpdate', flightId, version: first.data!.pushPassengerList.version, created: [1, 2, 3], modified: [], deleted: [], passengerCount: 3, seq: expect.any(Number), at: expect.any(String) });
    const changed = await updates.update();
    expect(changed).toEqual({ __typename: 'PassengerListUpdate', flightId, version: created.version + 1, created: [4], modified: [2], deleted: [1], passengerCount: 3, seq: expect.any(Number), at: expect.any(String) });
    expect(changed.seq).toBeGreaterThan(created.seq);
    // The version the REST answer's ETag carries.
    expect(rest.headers.etag).toBe(`"${changed.version}"`);
  });

  it('completes the subscription when the flight is deleted', async () => {
    const client = apolloClient();
    const flightId = await newFlight();
    const updates = await watch(client, flightId);
    const { body } = await live.testApp.graphql(DeleteFlightDocument, { id: flightId });
    expect(body.errors).toBeUndefined();
    expect(await updates.next()).toEqual({ kind: 'complete' });
  });

  it('answers an unknown flight with NOT_FOUND, as the passengerList query does', async () => {
    const client = apolloClient();
    const updates = await watch(client, 987_654);
    const outcome = await updates.next();
    expect(outcome.kind).toBe('next');
    const { error } = (outcome as { value: { error?: { errors?: unknown[] } } }).value;
    expect(error?.errors).toEqual([expect.objectContaining({ message: 'Flight 987654 does not exist', extensions: expect.objectContaining({ code: 'NOT_FOUND' }) })]);
  });

  it('refuses a token without passengers:read with FORBIDDEN on that subscription, naming the scope', async () => {
    const client = apolloClient(await live.testApp.token(['timeline:read']));
    const flightId = await newFlight();
    const updates = await watch(client, flightId);
    const outcome = await updates.next();
    const { error } = (outcome as { value: { error?: { errors?: unknown[] } } }).value;
    expect(error?.errors).toEqual([
      expect.objectContaining({
        message: 'Insufficient scope: this operation requires the "passengers:read" scope',
        extensions: { code: 'FORBIDDEN', details: [{ field: 'scope', message: 'missing scope passengers:read', scope: 'passengers:read' }] },
      }),
    ]);
  });
});
