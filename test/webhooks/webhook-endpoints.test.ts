import request from 'supertest';
import {
  CreateWebhookEndpointDocument,
  DeleteWebhookEndpointDocument,
  RotateWebhookEndpointSecretDocument,
  UpdateWebhookEndpointDocument,
  WebhookEndpointDocument,
  WebhookEndpointsDocument,
} from '../../src/graphql/generated/operations';
import { startTestApp, type TestApp } from '../helpers/test-app';

const ALLOW_LOOPBACK = { WEBHOOK_ALLOWED_PRIVATE_NETWORKS: '127.0.0.1' };
const newEndpoint = (url: string, extra: Record<string, unknown> = {}) => ({ input: { url, eventTypes: null, flightIds: null, description: null, enabled: null, ...extra } });
const noChanges = { url: null, eventTypes: undefined, flightIds: undefined, description: undefined, enabled: null };

describe('webhook endpoints: managed through GraphQL with scope webhooks:manage', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp('webhook_endpoints', { ...ALLOW_LOOPBACK, WEBHOOK_MAX_ENDPOINTS: '4' });
  });
  afterAll(() => testApp.close());
  afterEach(async () => {
    await testApp.database.connection.db!.collection('webhook_endpoints').deleteMany({});
  });

  it('creates an endpoint with every event type and flight by default, and shows its Standard Webhooks secret once', async () => {
    const { body } = await testApp.graphql(CreateWebhookEndpointDocument, newEndpoint('http://127.0.0.1:9/hooks', { description: '  ops desk  ' }));
    expect(body.errors).toBeUndefined();
    const { endpoint, secret } = body.data!.createWebhookEndpoint;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(endpoint).toMatchObject({
      url: 'http://127.0.0.1:9/hooks',
      description: 'ops desk',
      eventTypes: ['FLIGHT_CREATED', 'FLIGHT_UPDATED', 'FLIGHT_DELETED', 'PASSENGER_LIST_UPDATED'],
      flightIds: null,
      enabled: true,
      disabledReason: null,
      createdBy: 'tester',
      lastSuccessAt: null,
      failingSince: null,
    });
    expect(endpoint.id).toMatch(/^ep_[0-9a-f]{32}$/);

    // Never again: neither the list nor the endpoint's own query carries it.
    const listed = await testApp.graphql(WebhookEndpointsDocument, {});
    const one = await testApp.graphql(WebhookEndpointDocument, { id: endpoint.id });
    expect(listed.body.data!.webhookEndpoints.map((entry) => entry.id)).toEqual([endpoint.id]);
    expect(one.body.data!.webhookEndpoint).toEqual(endpoint);
    expect(JSON.stringify([listed.body, one.body])).not.toContain('whsec_');
    const schemaFields = await request(testApp.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${await testApp.token()}`)
      .send({ query: '{ __type(name: "WebhookEndpoint") { fields { name } } }' });
    expect(schemaFields.body.data.__type.fields.map((field: { name: string }) => field.name)).not.toContain('secret');
  });

  it('keeps the event types and flights asked for, sorted and without repeats', async () => {
    const { body } = await testApp.graphql(CreateWebhookEndpointDocument, newEndpoint('http://127.0.0.1:9/only', { eventTypes: ['PASSENGER_LIST_UPDATED', 'FLIGHT_CREATED', 'FLIGHT_CREATED'], flightIds: [42, 7, 42] }));
    expect(body.errors).toBeUndefined();
    expect(body.data!.createWebhookEndpoint.endpoint).toMatchObject({ eventTypes: ['FLIGHT_CREATED', 'PASSENGER_LIST_UPDATED'], flightIds: [7, 42] });
  });

  it('updates the URL, types and filter, leaves absent fields alone, and disables and enables with a reason', async () => {
    const created = await testApp.graphql(CreateWebhookEndpointDocument, newEndpoint('http://127.0.0.1:9/a', { description: 'first', flightIds: [1] }));
    const { id } = created.body.data!.createWebhookEndpoint.endpoint;

    const moved = await testApp.graphql(UpdateWebhookEndpointDocument, { id, input: { ...noChanges, url: 'http://127.0.0.1:9/b', eventTypes: ['FLIGHT_DELETED'] } });
    expect(moved.body.errors).toBeUndefined();
    expect(moved.body.data!.updateWebhookEndpoint).toMatchObject({ url: 'http://127.0.0.1:9/b', eventTypes: ['FLIGHT_DELETED'], flightIds: [1], description: 'first', enabled: true });

    const widened = await testApp.graphql(UpdateWebhookEndpointDocument, { id, input: { ...noChanges, flightIds: null, eventTypes: null, description: null } });
    expect(widened.body.data!.updateWebhookEndpoint).toMatchObject({ flightIds: null, eventTypes: ['FLIGHT_CREATED', 'FLIGHT_UPDATED', 'FLIGHT_DELETED', 'PASSENGER_LIST_UPDATED'], description: null });

    const disabled = await testApp.graphql(UpdateWebhookEndpointDocument, { id, input: { ...noChanges, enabled: false } }, await testApp.token(undefined, 'night-shift'));
    expect(disabled.body.data!.updateWebhookEndpoint).toMatchObject({ enabled: false, disabledReason: 'disabled by night-shift' });
    expect(disabled.body.data!.updateWebhookEndpoint.disabledAt).not.toBeNull();

    const enabled = await testApp.graphql(UpdateWebhookEndpointDocument, { id, input: { ...noChanges, enabled: true } });
    expect(enabled.body.data!.updateWebhookEndpoint).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });
  });

  it('rotates the secret: shown once, the old one still signs for a day unless revoked', async () => {
    const created = await testApp.graphql(CreateWebhookEndpointDocument, newEndpoint('http://127.0.0.1:9/rotate'));
    const { endpoint, secret } = created.body.data!.createWebhookEndpoint;

    const rotated = await testApp.graphql(RotateWebhookEndpointSecretDocument, { id: endpoint.id, revokePrevious: null });
    expect(rotated.body.errors).toBeUndefined();
    const next = rotated.body.data!.rotateWebhookEndpointSecret;
    expect(next.secret).toMatch(/^whsec_/);
    expect(next.secret).not.toBe(secret);
    const graceEnds = Date.parse(next.endpoint.previousSecretExpiresAt!);
    expect(graceEnds - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(graceEnds - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

    const revoked = await testApp.graphql(RotateWebhookEndpointSecretDocument, { id: endpoint.id, revokePrevious: true });
    expect(revoked.body.data!.rotateWebhookEndpointSecret.endpoint.previousSecretExpiresAt).toBeNull();
    const stored = await testApp.database.connection.db!.collection('webhook_endpoints').findOne({ _id: endpoint.id as never });
    expect(stored).toMatchObject({ secret: revoked.body.data!.rotateWebhookEndpointSecret.secret, previousSecret: null });
  });

  it('deletes an endpoint with its secret and its deliveries', async () => {
    const created = await testApp.graphql(CreateWebhookEndpointDocument, newEndpoint('http://127.0.0.1:9/gone'));
    const { id } = created.body.data!.createWebhookEndpoint.endpoint;
    const db = testApp.database.connection.db!;
    // A delivery as the dispatcher writes it, so that its removal can be seen.
    await db.collection('webhook_deliveries').insertOne({ _id: 'dlv_test' as never, eventId: 'evt_test', endpointId: id, status: 'failed', eventSeq: 1 });

    expect((await testApp.graphql(DeleteWebhookEndpointDocument, { id })).body.data).toEqual({ deleteWebhookEndpoint: true });
    expect(await db.collection('webhook_endpoints').countDocuments({ _id: id as never })).toBe(0);
    expect(await db.collection('webhook_deliveries').countDocuments({ endpointId: id })).toBe(0);

    const again = await testApp.graphql(DeleteWebhookEndpointDocument, { id });
    expect(again.status).toBe(404);
    expect(again.body.errors![0]).toMatchObject({ message: `Webhook endpoint ${id} does not exist`, extensions: { code: 'NOT_FOUND' } });
    const missing = await testApp.graphql(UpdateWebhookEndpointDocument, { id, input: { ...noChanges, enabled: false } });
    expect(missing.status).toBe(404);
    expect((await testApp.graphql(WebhookEndpointDocument, { id })).body.data).toEqual({ webhookEndpoint: null });
  });

  it('answers 400 naming each bad field, and stores nothing', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ url: 'not a url' }, 'url', /absolute URL/],
      [{ url: 'ftp://127.0.0.1/hooks' }, 'url', /https or http, not ftp/],
      [{ url: 'http://user:secret@127.0.0.1/hooks' }, 'url', /credentials/],
      [{ url: 'http://127.0.0.1/hooks#part' }, 'url', /fragment/],
      [{ url: `http://127.0.0.1/${'a'.repeat(2100)}` }, 'url', /at most 2048/],
      [{ url: 'http://127.0.0.1/hooks', eventTypes: [] }, 'eventTypes', /at least one event type/],
      [{ url: 'http://127.0.0.1/hooks', flightIds: [] }, 'flightIds', /at least one flight/],
      [{ url: 'http://127.0.0.1/hooks', flightIds: [0] }, 'flightIds', /positive/],
      [{ url: 'http://127.0.0.1/hooks', flightIds: Array.from({ length: 1001 }, (_, index) => index + 1) }, 'flightIds', /at most 1000/],
      [{ url: 'http://127.0.0.1/hooks', description: 'x'.repeat(501) }, 'description', /at most 500/],
    ];
    for (const [fields, field, message] of cases) {
      const { status, body } = await testApp.graphql(CreateWebhookEndpointDocument, newEndpoint('', fields));
      expect({ fields, status }).toEqual({ fields, status: 400 });
      expect(body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', details: [expect.objectContaining({ field, message: expect.stringMatching(message) })] });
      expect(JSON.stringify(body)).not.toMatch(/\bat .+\.ts:\d+/);
    }
    const unknownType = await request(testApp.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${await testApp.token()}`)
      .send({ query: 'mutation { createWebhookEndpoint(input: { url: "http://127.0.0.1/x", eventTypes: [FLIGHT_LANDED] }) { secret } }' });
    expect(unknownType.status).toBe(400);
    expect(await testApp.database.connection.db!.collection('webhook_endpoints').countDocuments()).toBe(0);
  });

  it('refuses more endpoints than WEBHOOK_MAX_ENDPOINTS with 409', async () => {
    for (let index = 0; index < 4; index += 1) {
      expect((await testApp.graphql(CreateWebhookEndpointDocument, newEndpoint(`http://127.0.0.1:9/${index}`))).body.errors).toBeUndefined();
    }
    const fifth = await testApp.graphql(CreateWebhookEndpointDocument, newEndpoint('http://127.0.0.1:9/5'));
    expect(fifth.status).toBe(409);
    expect(fifth.body.errors![0].message).toMatch(/WEBHOOK_MAX_ENDPOINTS/);
  });

  it('demands a token (401) with scope webhooks:manage (403) for every operation', async () => {
    const created = await testApp.graphql(CreateWebhookEndpointDocument, newEndpoint('http://127.0.0.1:9/scoped'));
    const { id } = created.body.data!.createWebhookEndpoint.endpoint;
    const everyOtherScope = await testApp.token(['timeline:read', 'passengers:read', 'passengers:write', 'flights:write']);
    const operations = [
      'query { webhookEndpoints { id } }',
      `query { webhookEndpoint(id: "${id}") { id } }`,
      'query { webhookDeliveries { nextCursor } }',
      'query { webhookDelivery(id: "dlv_x") { id } }',
      'mutation { createWebhookEndpoint(input: { url: "http://127.0.0.1:9/x" }) { secret } }',
      `mutation { updateWebhookEndpoint(id: "${id}", input: { enabled: false }) { id } }`,
      `mutation { rotateWebhookEndpointSecret(id: "${id}") { secret } }`,
      `mutation { deleteWebhookEndpoint(id: "${id}") }`,
      'mutation { replayWebhookDelivery(id: "dlv_x") { id } }',
      `mutation { replayWebhookEvent(eventId: "evt_x", endpointId: "${id}") { id } }`,
    ];
    for (const query of operations) {
      const anonymous = await request(testApp.app).post('/graphql').send({ query });
      expect({ query, status: anonymous.status }).toEqual({ query, status: 401 });
      expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      const unscoped = await request(testApp.app).post('/graphql').set('Authorization', `Bearer ${everyOtherScope}`).send({ query });
      expect({ query, status: unscoped.status }).toEqual({ query, status: 403 });
      expect(unscoped.body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(JSON.stringify(unscoped.body)).not.toContain('whsec_');
    }
    // Nothing changed: the endpoint is still there, enabled, with its secret.
    const after = await testApp.graphql(WebhookEndpointDocument, { id });
    expect(after.body.data!.webhookEndpoint).toMatchObject({ id, enabled: true, previousSecretExpiresAt: null });
  });
});

describe('webhook endpoints in production', () => {
  let production: TestApp;

  beforeAll(async () => {
    production = await startTestApp('webhook_production', { NODE_ENV: 'production', WEBHOOK_ALLOWED_PRIVATE_NETWORKS: '127.0.0.1' });
  });
  afterAll(() => production.close());

  it('accepts https only', async () => {
    const plain = await production.graphql(CreateWebhookEndpointDocument, newEndpoint('http://127.0.0.1:9/hooks'));
    expect(plain.status).toBe(400);
    expect(plain.body.errors![0].extensions).toMatchObject({ details: [{ field: 'url', message: 'url must use https in production' }] });
    const secure = await production.graphql(CreateWebhookEndpointDocument, newEndpoint('https://127.0.0.1:9/hooks'));
    expect(secure.body.errors).toBeUndefined();
  });
});
