import { Webhook } from 'standardwebhooks';
import {
  ReplayWebhookDeliveryDocument,
  ReplayWebhookEventDocument,
  RotateWebhookEndpointSecretDocument,
  UpdateWebhookEndpointDocument,
  WebhookDeliveriesDocument,
  WebhookDeliveryDocument,
  WebhookEndpointDocument,
} from '../../src/graphql/generated/operations';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createReferenceData } from '../helpers/timeline-fixtures';
import {
  deleteFlight,
  deliveriesOf,
  eventsOf,
  FAST_WEBHOOKS,
  forgetWebhooks,
  moveFlight,
  newFlight,
  pushPassengers,
  subscribe,
  type Delivery,
} from './webhook-helpers';
import { eventually, WebhookReceiver } from './webhook-receiver';

describe('webhook deliveries: signed, thin, retried, logged', () => {
  let testApp: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    testApp = await startTestApp('webhook_delivery', FAST_WEBHOOKS);
    await createReferenceData(testApp);
  });
  afterAll(async () => {
    await testApp.close();
    await receiver.close();
  });
  afterEach(async () => {
    await forgetWebhooks(testApp);
    expect(receiver.rejected).toEqual([]);
  });

  /** Waits until every event is dispatched and no delivery is pending: what was sent is all there will be. */
  async function settled(): Promise<void> {
    const db = testApp.database.connection.db!;
    await eventually(async () => {
      expect(await db.collection('change_events').countDocuments({ webhooksDispatched: false })).toBe(0);
      expect(await db.collection('webhook_deliveries').countDocuments({ status: 'pending' })).toBe(0);
    });
  }

  it('sends flight.created, flight.updated, passenger_list.updated (REST pushes) and flight.deleted, signed per Standard Webhooks, with thin payloads', async () => {
    const path = '/hooks/all';
    const endpoint = await subscribe(testApp, receiver, path);
    const flightId = await newFlight(testApp);
    await moveFlight(testApp, flightId);
    await pushPassengers(testApp, flightId, { created: [1, 2] });
    await pushPassengers(testApp, flightId, { created: [3], modified: [1], deleted: [2] });
    await deleteFlight(testApp, flightId);

    const received = await eventually(() => {
      const got = receiver.on(path);
      expect(got).toHaveLength(5);
      return got;
    });
    const events = await eventsOf(testApp, flightId);
    expect(events.map((event) => event.type)).toEqual(['flight.created', 'flight.updated', 'passenger_list.updated', 'passenger_list.updated', 'flight.deleted']);
    // webhook-id is the event's id: one message per event, the same on every retry.
    const byId = new Map(received.map((webhook) => [webhook.id, webhook]));
    expect([...byId.keys()].sort()).toEqual(events.map((event) => event._id).sort());

    const [created, updated, firstPush, secondPush, deleted] = events.map((event) => byId.get(event._id)!);
    const flight = { flightId, id: `Flight:${flightId}` };
    expect(created.payload).toEqual({ type: 'flight.created', timestamp: expect.any(String), data: flight });
    expect(updated.payload.data).toEqual(flight);
    expect(deleted.payload).toMatchObject({ type: 'flight.deleted', data: flight });
    expect(firstPush.payload).toEqual({ type: 'passenger_list.updated', timestamp: expect.any(String), data: { ...flight, version: 1, created: [1, 2], modified: [], deleted: [], count: 2 } });
    expect(secondPush.payload.data).toEqual({ ...flight, version: 2, created: [3], modified: [1], deleted: [2], count: 2 });
    for (const webhook of received) {
      expect(webhook.headers['content-type']).toBe('application/json');
      expect(webhook.signatures).toHaveLength(1);
      expect(webhook.signatures[0]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Math.abs(webhook.timestamp - Date.now() / 1000)).toBeLessThan(300);
      expect(Date.parse(webhook.payload.timestamp)).toBeLessThanOrEqual(Date.now());
      // No personal data: the pushed records' names and documents never travel.
      expect(webhook.body).not.toMatch(/Rossi|Bianchi|YA100|surname|numberdoc/);
    }
    // A body changed in transit fails verification.
    expect(() => new Webhook(endpoint.secret).verify(created.body.replace('flight.created', 'flight.deleted'), {
      'webhook-id': created.id, 'webhook-timestamp': String(created.timestamp), 'webhook-signature': created.signatures.join(' '),
    })).toThrow('No matching signature found');

    await settled();
    const log = await deliveriesOf(testApp, endpoint.id);
    expect(log).toHaveLength(5);
    // Newest event first.
    expect(log.map((delivery) => delivery.eventId)).toEqual([...events].reverse().map((event) => event._id));
    for (const delivery of log) {
      expect(delivery).toMatchObject({ status: 'DELIVERED', attempts: 1, lastStatusCode: 204, lastError: null, nextAttemptAt: null, inFlight: false, flightId });
      expect(delivery.deliveredAt).not.toBeNull();
      expect(delivery.recentAttempts).toEqual([{ at: delivery.lastAttemptAt, durationMs: expect.any(Number), statusCode: 204, error: null }]);
      expect(JSON.parse(delivery.payload)).toEqual(byId.get(delivery.eventId)!.payload);
    }
    const endpointNow = await testApp.database.connection.db!.collection('webhook_endpoints').findOne({ _id: endpoint.id as never });
    expect(endpointNow).toMatchObject({ failingSince: null, lastSuccessAt: expect.any(Date) });
  });

  it('sends an endpoint only the event types and flights it asked for', async () => {
    const lists = await subscribe(testApp, receiver, '/hooks/lists', { eventTypes: ['PASSENGER_LIST_UPDATED'] });
    const first = await newFlight(testApp, 'IFL201');
    const second = await newFlight(testApp, 'IFL202');
    const oneFlight = await subscribe(testApp, receiver, '/hooks/one-flight', { flightIds: [second] });
    await pushPassengers(testApp, first, { created: [1] });
    await pushPassengers(testApp, second, { created: [1] });
    await moveFlight(testApp, second);
    await moveFlight(testApp, first);
    await settled();

    const listEvents = receiver.on('/hooks/lists').map((webhook) => [webhook.payload.type, webhook.payload.data.flightId]);
    expect(listEvents.sort()).toEqual([['passenger_list.updated', first], ['passenger_list.updated', second]].sort());
    // Created after the flights: it gets none of their flight.created events.
    const flightEvents = receiver.on('/hooks/one-flight').map((webhook) => [webhook.payload.type, webhook.payload.data.flightId]);
    expect(flightEvents.sort()).toEqual([['flight.updated', second], ['passenger_list.updated', second]].sort());
    expect(await deliveriesOf(testApp, lists.id)).toHaveLength(2);
    expect(await deliveriesOf(testApp, oneFlight.id)).toHaveLength(2);
  });

  it('retries a 500 after the scheduled backoff, logging each attempt, and reads only the start of the answer', async () => {
    const path = '/hooks/flaky';
    const endpoint = await subscribe(testApp, receiver, path, { eventTypes: ['FLIGHT_CREATED'] });
    let calls = 0;
    receiver.answer(path, () => (++calls <= 2 ? { status: 500, body: `overloaded ${'x'.repeat(1_000_000)}` } : { status: 200 }));
    await newFlight(testApp, 'IFL300');

    const [delivery] = await eventually(async () => {
      const log = await deliveriesOf(testApp, endpoint.id);
      expect(log[0]?.status).toBe('DELIVERED');
      return log;
    });
    expect(receiver.on(path)).toHaveLength(1);
    expect(delivery).toMatchObject({ attempts: 3, lastStatusCode: 200, lastError: null });
    const attempts = delivery.recentAttempts;
    expect(attempts.map((attempt) => attempt.statusCode)).toEqual([500, 500, 200]);
    expect(attempts[0].error).toMatch(/^HTTP 500: overloaded x+/);
    // The log keeps a bounded excerpt of the million-byte answer.
    expect(attempts[0].error!.length).toBeLessThanOrEqual(400);
    // Schedule 100 ms then 200 ms, each jittered by at most 20 %: never sooner.
    const gap = (index: number) => Date.parse(attempts[index].at) - (Date.parse(attempts[index - 1].at) + attempts[index - 1].durationMs);
    expect(gap(1)).toBeGreaterThanOrEqual(80 - 5);
    expect(gap(2)).toBeGreaterThanOrEqual(160 - 5);
    // Each retry is signed anew, with the same webhook-id.
    expect(new Set(receiver.requests.filter((entry) => entry.path === path).map((entry) => entry.id)).size).toBe(1);
  });

  it('gives up after the schedule when the receiver never answers in time, then replays on demand', async () => {
    // An app of its own with a short attempt limit, and a receiver that holds its answers far past
    // it: every attempt times out however slow the machine is.
    const slowApp = await startTestApp('webhook_slow', { ...FAST_WEBHOOKS, WEBHOOK_ATTEMPT_TIMEOUT_MS: '500' });
    try {
      await createReferenceData(slowApp);
      await givesUpThenReplays(slowApp);
    } finally {
      await slowApp.close();
    }
  });

  async function givesUpThenReplays(app: TestApp): Promise<void> {
    const path = '/hooks/slow';
    const endpoint = await subscribe(app, receiver, path, { eventTypes: ['FLIGHT_CREATED'] });
    let slow = true;
    receiver.answer(path, () => (slow ? { delayMs: 600_000 } : {}));
    await newFlight(app, 'IFL400');

    const [failed] = await eventually(async () => {
      const log = await deliveriesOf(app, endpoint.id);
      expect(log[0]?.status).toBe('FAILED');
      return log;
    });
    expect(failed).toMatchObject({ attempts: 3, lastStatusCode: null, lastError: 'no answer within 500 ms', nextAttemptAt: null, deliveredAt: null });
    expect(failed.recentAttempts.map((attempt) => attempt.error)).toEqual(Array(3).fill('no answer within 500 ms'));
    expect(receiver.on(path)).toHaveLength(0);

    slow = false;
    const replayed = await app.graphql(ReplayWebhookDeliveryDocument, { id: failed.id });
    expect(replayed.body.errors).toBeUndefined();
    expect(replayed.body.data!.replayWebhookDelivery).toMatchObject({ id: failed.id, status: 'PENDING' });
    const delivered = await eventually(async () => {
      const { body } = await app.graphql(WebhookDeliveryDocument, { id: failed.id });
      expect(body.data!.webhookDelivery!.status).toBe('DELIVERED');
      return body.data!.webhookDelivery!;
    });
    expect(delivered).toMatchObject({ attempts: 4, lastStatusCode: 204 });
    expect(receiver.on(path).map((webhook) => webhook.id)).toEqual([failed.eventId]);
  }

  it('follows no redirect: a 3xx is a failed attempt, logged with its Location', async () => {
    const path = '/hooks/moved';
    const endpoint = await subscribe(testApp, receiver, path, { eventTypes: ['FLIGHT_CREATED'] });
    receiver.expect('/hooks/elsewhere', endpoint.secret);
    receiver.answer(path, () => ({ status: 307, headers: { Location: receiver.url('/hooks/elsewhere') } }));
    await newFlight(testApp, 'IFL500');

    const [failed] = await eventually(async () => {
      const log = await deliveriesOf(testApp, endpoint.id);
      expect(log[0]?.status).toBe('FAILED');
      return log;
    });
    expect(failed.lastStatusCode).toBe(307);
    expect(failed.lastError).toBe(`redirect (307 to ${receiver.url('/hooks/elsewhere')}) not followed: give the endpoint its final URL`);
    expect(receiver.requests.filter((entry) => entry.path === '/hooks/elsewhere')).toEqual([]);
  });

  it('replays an event to an endpoint its filter did not choose, with the event id as webhook-id', async () => {
    const path = '/hooks/other-flight';
    const endpoint = await subscribe(testApp, receiver, path, { flightIds: [999_999] });
    const flightId = await newFlight(testApp, 'IFL600');
    await settled();
    expect(await deliveriesOf(testApp, endpoint.id)).toEqual([]);

    const [created] = await eventsOf(testApp, flightId);
    const { body } = await testApp.graphql(ReplayWebhookEventDocument, { eventId: created._id, endpointId: endpoint.id });
    expect(body.errors).toBeUndefined();
    expect(body.data!.replayWebhookEvent).toMatchObject({ eventId: created._id, endpointId: endpoint.id, eventType: 'FLIGHT_CREATED', flightId });
    await eventually(() => expect(receiver.on(path).map((webhook) => webhook.id)).toEqual([created._id]));

    // Again: the same delivery is sent again rather than a second one created.
    const again = await testApp.graphql(ReplayWebhookEventDocument, { eventId: created._id, endpointId: endpoint.id });
    expect(again.body.data!.replayWebhookEvent.id).toBe(body.data!.replayWebhookEvent.id);
    await eventually(() => expect(receiver.on(path)).toHaveLength(2));
    expect(await deliveriesOf(testApp, endpoint.id)).toHaveLength(1);

    const unknownEvent = await testApp.graphql(ReplayWebhookEventDocument, { eventId: 'evt_nothing', endpointId: endpoint.id });
    expect(unknownEvent.status).toBe(404);
    const unknownDelivery = await testApp.graphql(ReplayWebhookDeliveryDocument, { id: 'dlv_nothing' });
    expect(unknownDelivery.status).toBe(404);
  });

  it('signs with the old and the new secret during a rotation, and with the new one alone once revoked', async () => {
    const path = '/hooks/rotating';
    const endpoint = await subscribe(testApp, receiver, path, { eventTypes: ['FLIGHT_CREATED'] });
    const rotated = await testApp.graphql(RotateWebhookEndpointSecretDocument, { id: endpoint.id, revokePrevious: false });
    const newSecret = rotated.body.data!.rotateWebhookEndpointSecret.secret;
    // The receiver still knows the old secret only: the delivery must verify with it.
    await newFlight(testApp, 'IFL700');
    const [duringGrace] = await eventually(() => {
      const got = receiver.on(path);
      expect(got).toHaveLength(1);
      return got;
    });
    expect(duringGrace.signatures).toHaveLength(2);
    const headers = { 'webhook-id': duringGrace.id, 'webhook-timestamp': String(duringGrace.timestamp), 'webhook-signature': duringGrace.signatures.join(' ') };
    expect(new Webhook(newSecret).verify(duringGrace.body, headers)).toEqual(duringGrace.payload);

    const revoked = await testApp.graphql(RotateWebhookEndpointSecretDocument, { id: endpoint.id, revokePrevious: true });
    const latest = revoked.body.data!.rotateWebhookEndpointSecret.secret;
    receiver.expect(path, latest);
    await newFlight(testApp, 'IFL701');
    await eventually(() => expect(receiver.on(path)).toHaveLength(2));
    expect(receiver.on(path)[1].signatures).toHaveLength(1);
    const oldHeaders = { 'webhook-id': receiver.on(path)[1].id, 'webhook-timestamp': String(receiver.on(path)[1].timestamp), 'webhook-signature': receiver.on(path)[1].signatures[0] };
    expect(() => new Webhook(endpoint.secret).verify(receiver.on(path)[1].body, oldHeaders)).toThrow();
  });

  it('pages the delivery log, newest first, with bounded pages and checked cursors', async () => {
    const endpoint = await subscribe(testApp, receiver, '/hooks/paged', { eventTypes: ['FLIGHT_CREATED'] });
    for (let index = 0; index < 5; index += 1) await newFlight(testApp, `IFL8${index}`);
    await settled();
    const all = await deliveriesOf(testApp, endpoint.id);
    expect(all).toHaveLength(5);

    const pages: Delivery[][] = [];
    let after: string | null = null;
    do {
      const { body }: { body: { data?: { webhookDeliveries: { deliveries: Delivery[]; nextCursor: string | null } } | null } } = await testApp.graphql(WebhookDeliveriesDocument, {
        endpointId: endpoint.id, eventId: null, status: 'DELIVERED', first: 2, after,
      });
      pages.push(body.data!.webhookDeliveries.deliveries);
      after = body.data!.webhookDeliveries.nextCursor;
    } while (after);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat().map((delivery) => delivery.id)).toEqual(all.map((delivery) => delivery.id));

    const badPages: [{ first?: number; after?: string }, string][] = [[{ first: 0 }, 'first'], [{ first: 101 }, 'first'], [{ after: 'bm90IGEgY3Vyc29y' }, 'after']];
    for (const [variables, field] of badPages) {
      const { status, body } = await testApp.graphql(WebhookDeliveriesDocument, { endpointId: null, eventId: null, status: null, first: 10, after: null, ...variables });
      expect(status).toBe(400);
      expect(body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', details: [expect.objectContaining({ field })] });
    }
  });
});

describe('an endpoint failing for long', () => {
  let testApp: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    testApp = await startTestApp('webhook_disable', { ...FAST_WEBHOOKS, WEBHOOK_RETRY_SCHEDULE_MS: '100,100,100,100,100,100', WEBHOOK_DISABLE_AFTER_MS: '250' });
    await createReferenceData(testApp);
  });
  afterAll(async () => {
    await testApp.close();
    await receiver.close();
  });

  it('is disabled with a reason, gets nothing while disabled, and resumes its paused deliveries when enabled', async () => {
    const path = '/hooks/down';
    const endpoint = await subscribe(testApp, receiver, path, { eventTypes: ['FLIGHT_CREATED'] });
    let down = true;
    receiver.answer(path, () => (down ? { status: 503, body: 'maintenance' } : {}));
    await newFlight(testApp, 'IFL900');

    const disabled = await eventually(async () => {
      const stored = await testApp.graphql(WebhookEndpointDocument, { id: endpoint.id });
      expect(stored.body.data!.webhookEndpoint!.enabled).toBe(false);
      return stored.body.data!.webhookEndpoint!;
    });
    expect(disabled.disabledReason).toMatch(/^no successful delivery since \S+ \(more than WEBHOOK_DISABLE_AFTER_MS, 250 ms\), last error: HTTP 503: maintenance$/);
    expect(disabled.disabledAt).not.toBeNull();
    expect(disabled.failingSince).not.toBeNull();
    const [paused] = await eventually(async () => {
      const log = await deliveriesOf(testApp, endpoint.id);
      expect(log[0].status).toBe('PAUSED');
      return log;
    });
    expect(paused.attempts).toBeGreaterThanOrEqual(2);
    expect(paused.nextAttemptAt).toBeNull();

    // While disabled, new events make no delivery for it.
    await newFlight(testApp, 'IFL901');
    await eventually(async () => expect(await testApp.database.connection.db!.collection('change_events').countDocuments({ webhooksDispatched: false })).toBe(0));
    expect(await deliveriesOf(testApp, endpoint.id)).toHaveLength(1);
    const replayWhileDisabled = await testApp.graphql(ReplayWebhookDeliveryDocument, { id: paused.id });
    expect(replayWhileDisabled.status).toBe(409);

    down = false;
    const enabled = await testApp.graphql(UpdateWebhookEndpointDocument, { id: endpoint.id, input: { url: null, eventTypes: undefined, flightIds: undefined, description: undefined, enabled: true } });
    expect(enabled.body.data!.updateWebhookEndpoint).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
    await eventually(async () => expect((await deliveriesOf(testApp, endpoint.id))[0].status).toBe('DELIVERED'));
    expect(receiver.on(path).map((webhook) => webhook.id)).toEqual([paused.eventId]);
    expect(receiver.rejected).toEqual([]);
  });
});

describe('endpoints on one host and port', () => {
  let testApp: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // One attempt in flight per endpoint: the connection pool was limited to that per host:port, so
    // the endpoints on the receiver's port shared one socket and queued behind each other. The
    // time-out is generous (the test waits for arrivals, never for the clock).
    testApp = await startTestApp('webhook_siblings', { ...FAST_WEBHOOKS, WEBHOOK_CONCURRENCY_PER_ENDPOINT: '1', WEBHOOK_ATTEMPT_TIMEOUT_MS: '10000' });
    await createReferenceData(testApp);
  });
  afterAll(async () => {
    await testApp.close();
    await receiver.close();
  });

  it('delivers to the others at their first attempt while one never answers: no attempt waits for a sibling endpoint', async () => {
    const only = { eventTypes: ['FLIGHT_CREATED' as const] };
    const hung = await subscribe(testApp, receiver, '/hooks/hung', only);
    const slow = [await subscribe(testApp, receiver, '/hooks/slow-1', only), await subscribe(testApp, receiver, '/hooks/slow-2', only)];
    const quick = await subscribe(testApp, receiver, '/hooks/quick', only);
    // The slow receivers answer once the hung one's request and each other's have arrived: only
    // when their requests went out while the hung one was still waiting for its answer.
    const together = ['/hooks/hung', '/hooks/slow-1', '/hooks/slow-2'];
    let release!: () => void;
    const allArrived = new Promise<void>((resolve) => (release = resolve));
    const arrived = () => {
      if (together.every((path) => receiver.requests.some((request) => request.path === path))) release();
    };
    receiver.answer('/hooks/hung', () => {
      arrived();
      return { delayMs: 600_000 };
    });
    for (const path of ['/hooks/slow-1', '/hooks/slow-2']) {
      receiver.answer(path, () => {
        arrived();
        return { until: allArrived };
      });
    }
    await newFlight(testApp, 'IFL960');

    for (const endpoint of [...slow, quick]) {
      // Its first attempt, as recorded: delivered, not timed out in a queue.
      const [delivery] = await eventually(async () => {
        const log = await deliveriesOf(testApp, endpoint.id);
        expect(log[0]?.attempts).toBeGreaterThanOrEqual(1);
        return log;
      });
      expect(delivery).toMatchObject({ status: 'DELIVERED', attempts: 1, lastStatusCode: 204, lastError: null });
    }
    // All of them while the hung receiver's first attempt still waits for its answer.
    const [hanging] = await deliveriesOf(testApp, hung.id);
    expect(hanging).toMatchObject({ status: 'PENDING', inFlight: true, attempts: 0 });
    expect(receiver.rejected).toEqual([]);
  });
});
