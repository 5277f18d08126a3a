import { uniqueDatabaseName } from '../helpers/database';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createReferenceData } from '../helpers/timeline-fixtures';
import { deliveriesOf, FAST_WEBHOOKS, moveFlight, newFlight, pushPassengers, subscribe } from './webhook-helpers';
import { eventually, WebhookReceiver } from './webhook-receiver';

/** How many requests carried each webhook-id on a path. */
function countById(receiver: WebhookReceiver, path: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { id } of receiver.requests.filter((entry) => entry.path === path)) counts.set(id!, (counts.get(id!) ?? 0) + 1);
  return counts;
}

describe('webhooks with several service processes on one database', () => {
  const dbName = uniqueDatabaseName('webhook_processes');
  let receiver: WebhookReceiver;
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // A generous attempt time-out: on a loaded machine a 500 ms one can expire after the receiver got
    // the request, and the retry that follows (at-least-once, as webhooks are) is not what this tests.
    const env = { ...FAST_WEBHOOKS, WEBHOOK_ATTEMPT_TIMEOUT_MS: '30000' };
    first = await startTestApp('webhook_processes', env, { dbName });
    second = await startTestApp('webhook_processes', env, { dbName });
    await createReferenceData(first);
  });
  afterAll(async () => {
    await second.close();
    await first.database.connection.dropDatabase();
    await first.close();
    await receiver.close();
  });

  it('delivers each event once per endpoint, whichever process made the change', async () => {
    const one = await subscribe(first, receiver, '/hooks/one');
    const two = await subscribe(second, receiver, '/hooks/two', { eventTypes: ['PASSENGER_LIST_UPDATED', 'FLIGHT_UPDATED'] });

    // Changes through both processes at once: each process's feed wakes both dispatchers.
    const flights = await Promise.all(Array.from({ length: 6 }, (_, index) => newFlight(index % 2 ? first : second, `IFL${index}`)));
    await Promise.all(flights.map((flightId, index) => pushPassengers(index % 2 ? second : first, flightId, { created: [1, 2, 3] })));
    await Promise.all(flights.map((flightId, index) => moveFlight(index % 2 ? first : second, flightId)));

    const db = first.database.connection.db!;
    const events = await db.collection('change_events').find({ flightId: { $in: flights }, skip: { $ne: true } }).toArray();
    expect(events).toHaveLength(18);
    const wantedByTwo = events.filter((event) => event.type !== 'flight.created');

    await eventually(() => {
      expect(receiver.on('/hooks/one')).toHaveLength(18);
      expect(receiver.on('/hooks/two')).toHaveLength(12);
    });
    await eventually(async () => expect(await db.collection('webhook_deliveries').countDocuments({ status: { $ne: 'delivered' } })).toBe(0));
    // Exactly once: no webhook-id arrived twice on a path, and every event arrived.
    expect([...countById(receiver, '/hooks/one').entries()].sort()).toEqual(events.map((event) => [event._id, 1]).sort());
    expect([...countById(receiver, '/hooks/two').entries()].sort()).toEqual(wantedByTwo.map((event) => [event._id, 1]).sort());
    expect((await deliveriesOf(first, one.id)).every((delivery) => delivery.attempts === 1)).toBe(true);
    expect(await deliveriesOf(second, two.id)).toHaveLength(12);
    expect(receiver.rejected).toEqual([]);
  });
});

describe('webhooks across a restart', () => {
  const dbName = uniqueDatabaseName('webhook_restart');
  let receiver: WebhookReceiver;
  let before: TestApp | undefined;
  let after: TestApp | undefined;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await before?.close();
    await after?.database.connection.dropDatabase();
    await after?.close();
    before = after = undefined;
  });
  afterAll(() => receiver.close());

  it('resumes a delivery waiting for its retry when another process starts on the database', async () => {
    before = await startTestApp('webhook_restart', { ...FAST_WEBHOOKS, WEBHOOK_RETRY_SCHEDULE_MS: '400' }, { dbName });
    await createReferenceData(before);
    const path = '/hooks/restart-retry';
    const endpoint = await subscribe(before, receiver, path, { eventTypes: ['FLIGHT_CREATED'] });
    let up = false;
    receiver.answer(path, () => (up ? {} : { status: 503 }));
    await newFlight(before, 'IFL1');
    const [waiting] = await eventually(async () => {
      const log = await deliveriesOf(before!, endpoint.id);
      expect(log[0]).toMatchObject({ status: 'PENDING', attempts: 1, lastStatusCode: 503 });
      return log;
    });

    await before.close();
    before = undefined;
    up = true;
    after = await startTestApp('webhook_restart', FAST_WEBHOOKS, { dbName });
    await eventually(async () => expect((await deliveriesOf(after!, endpoint.id))[0].status).toBe('DELIVERED'));
    expect(receiver.on(path).map((webhook) => webhook.id)).toEqual([waiting.eventId]);
    expect((await deliveriesOf(after, endpoint.id))[0].attempts).toBe(2);
  });

  it('hands back an attempt cut short by a shutdown, and the next process delivers it', async () => {
    before = await startTestApp('webhook_restart', { ...FAST_WEBHOOKS, WEBHOOK_ATTEMPT_TIMEOUT_MS: '30000' }, { dbName });
    await createReferenceData(before);
    const path = '/hooks/restart-in-flight';
    const endpoint = await subscribe(before, receiver, path, { eventTypes: ['FLIGHT_CREATED'] });
    let stalled = true;
    receiver.answer(path, () => (stalled ? { delayMs: 60_000 } : {}));
    await newFlight(before, 'IFL2');
    await eventually(() => expect(receiver.requests.filter((entry) => entry.path === path)).toHaveLength(1));
    expect((await deliveriesOf(before, endpoint.id))[0].inFlight).toBe(true);

    await before.close();
    before = undefined;
    stalled = false;
    after = await startTestApp('webhook_restart', FAST_WEBHOOKS, { dbName });
    const [delivered] = await eventually(async () => {
      const log = await deliveriesOf(after!, endpoint.id);
      expect(log[0].status).toBe('DELIVERED');
      return log;
    });
    // The cut attempt was not counted as a failure.
    expect(delivered).toMatchObject({ attempts: 1, lastStatusCode: 204 });
    expect(receiver.on(path)).toHaveLength(1);
    expect(receiver.rejected).toEqual([]);
  });
});
