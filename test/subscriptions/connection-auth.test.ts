import type { Client } from 'graphql-ws';
import { SignJWT } from 'jose';
import { mintToken } from '../../src/auth';
import { secretKeyBytes } from '../../src/auth/keys';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import { TEST_SECRET } from '../helpers/test-app';
import { bearer, RawSocket, ResultQueue, startLiveApp, subscriptionsListening, wsClient, type CloseEventLike, type LiveApp } from './live-app';

/*
 * The token travels in connection_init's payload and is checked as HTTP checks it: what HTTP
 * answers 401 closes the socket with 4401 and the same message, a token with no scope for any
 * subscription 4403, and the token's expiry ends the connection.
 */

const WATCH = 'subscription { timelineChanged(start: "2026-06-08", end: "2026-06-14") { flightId change } }';
const LIST_WATCH = 'subscription($id: Int!) { passengerListChanged(flightId: $id) { version } }';

describe('WebSocket authentication (connection_init payload)', () => {
  let live: LiveApp;
  const clients: Client[] = [];

  beforeAll(async () => {
    live = await startLiveApp('subscriptions_auth');
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await live?.close();
  });

  /** Opens a raw socket, sends connection_init with `payload`, and returns the answer or the close. */
  const initWith = async (payload: unknown): Promise<Record<string, unknown> | CloseEventLike> => {
    const raw = new RawSocket(live.wsUrl);
    const answer = await Promise.race([raw.init(payload), raw.closed]);
    raw.socket.close();
    return answer;
  };
  const signed = (claims: Record<string, unknown>, secret = TEST_SECRET) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(secretKeyBytes(secret));

  it('acknowledges `authorization` and `Authorization`, at the top level or under `headers`', async () => {
    const token = await live.testApp.token(['timeline:read']);
    for (const payload of [{ authorization: `Bearer ${token}` }, { Authorization: `Bearer ${token}` }, { headers: { Authorization: `Bearer ${token}` } }, { headers: { authorization: `bearer ${token}` } }]) {
      expect(await initWith(payload)).toEqual({ type: 'connection_ack' });
    }
  });

  it('closes with 4401 and says how to authenticate when there is no token', async () => {
    const expected = { code: 4401, reason: "Authentication required: send { authorization: 'Bearer <token>' } as connection_init's payload" };
    expect(await initWith(undefined)).toEqual(expected);
    expect(await initWith({})).toEqual(expected);
    expect(await initWith({ headers: { 'X-Other': 'a' } })).toEqual(expected);
  });

  it('closes with 4401 and HTTP’s message for every credential HTTP refuses', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await live.testApp.token();
    const cases: Array<[unknown, string]> = [
      [{ authorization: 'Basic dXNlcjpwYXNz' }, 'Unsupported authorization scheme: send Authorization: Bearer <token>'],
      [{ authorization: 'Bearer' }, 'Malformed Authorization header: the Bearer token is empty'],
      [{ authorization: `Bearer ${token}x` }, 'Invalid bearer token: signature verification failed'],
      [{ authorization: `Bearer ${await signed({ sub: 'x', scope: 'timeline:read', exp: now - 3600 })}` }, 'Invalid bearer token: the token has expired (exp)'],
      [{ authorization: `Bearer ${await signed({ sub: 'x', scope: 'timeline:read', exp: now + 60 }, 'another-secret-that-is-at-least-32-bytes!!')}` }, 'Invalid bearer token: signature verification failed'],
      [{ authorization: 42 }, "Malformed credentials: authorization must be a string, 'Bearer <token>'"],
      [{ authorization: `Bearer ${token}`, Authorization: `Bearer ${token}` }, 'Malformed credentials: 2 authorization entries in connection_init, send one'],
      [{ authorization: `Bearer ${token}`, headers: { authorization: `Bearer ${token}` } }, 'Malformed credentials: 2 authorization entries in connection_init, send one'],
    ];
    for (const [payload, reason] of cases) expect(await initWith(payload)).toEqual({ code: 4401, reason });
  });

  it('closes with 4403 when the token grants no scope any subscription needs', async () => {
    expect(await initWith(bearer(await live.testApp.token(['flights:write', 'passengers:write'])))).toEqual({ code: 4403, reason: 'Insufficient scope: subscriptions need timeline:read or passengers:read' });
  });

  it('closes with 4401 a client that subscribes before connection_init (graphql-ws)', async () => {
    const raw = new RawSocket(live.wsUrl);
    await raw.opened;
    raw.send({ id: '1', type: 'subscribe', payload: { query: WATCH } });
    expect(await raw.closed).toEqual({ code: 4401, reason: 'Unauthorized' });
  });

  it('reports the refusal to graphql-ws’s client as a close event it gives up on at once, though allowed to retry', async () => {
    let attempts = 0;
    const gaveUp = new Promise<CloseEventLike>((resolve) => {
      const client = wsClient(live.wsUrl, { authorization: 'Bearer nope' }, { retryAttempts: 3, lazy: false, onNonLazyError: (event) => resolve(event as CloseEventLike), on: { connecting: () => attempts++ } });
      clients.push(client);
    });
    expect(await gaveUp).toMatchObject({ code: 4401, reason: 'Invalid bearer token: the token is not a JWT in compact form (three base64url parts without padding)' });
    expect(attempts).toBe(1);
  });

  it('answers a subscription its token lacks the scope for with FORBIDDEN, and keeps the others of the connection running', async () => {
    await createReferenceData(live.testApp);
    const flightId = await createFlight(live.testApp, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-06-10T08:00:00Z', arrivalAt: '2026-06-10T09:00:00Z' });
    const client = wsClient(live.wsUrl, bearer(await live.testApp.token(['timeline:read'])));
    const timeline = new ResultQueue<{ timelineChanged: { flightId: number } }>(client, WATCH);
    const list = new ResultQueue(client, LIST_WATCH, { id: flightId });
    await subscriptionsListening(client);
    const refused = await list.next();
    expect(refused.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })]);
    const created = await createFlight(live.testApp, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-06-11T08:00:00Z', arrivalAt: '2026-06-11T09:00:00Z' });
    expect((await timeline.data()).timelineChanged.flightId).toBe(created);
    await client.dispose();
  });
});

describe('the token’s expiry', () => {
  let live: LiveApp;

  beforeAll(async () => {
    live = await startLiveApp('subscriptions_expiry', { JWT_CLOCK_TOLERANCE_SECONDS: '0' });
  });
  afterAll(async () => {
    await live?.close();
  });

  it('ends the connection with 4401 when its token expires; a connection with a longer token goes on', async () => {
    await createReferenceData(live.testApp);
    const shortLived = wsClient(live.wsUrl, bearer(await mintToken(live.testApp.config.auth, { sub: 'short', scope: ['timeline:read'], ttlSeconds: 2 })));
    const hourLong = wsClient(live.wsUrl, bearer(await live.testApp.token(['timeline:read'])));
    const ending = new ResultQueue(shortLived, WATCH);
    const going = new ResultQueue<{ timelineChanged: { flightId: number } }>(hourLong, WATCH);
    await Promise.all([subscriptionsListening(shortLived), subscriptionsListening(hourLong)]);
    expect(await ending.ended()).toMatchObject({ code: 4401, reason: 'Invalid bearer token: the token has expired (exp); reconnect with a new token' });
    const flightId = await createFlight(live.testApp, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-06-10T08:00:00Z', arrivalAt: '2026-06-10T09:00:00Z' });
    expect((await going.data()).timelineChanged.flightId).toBe(flightId);
    await Promise.all([shortLived.dispose(), hourLong.dispose()]);
  });
});
