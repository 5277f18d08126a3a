import { CreateWebhookEndpointDocument, UpdateWebhookEndpointDocument, WebhookEndpointDocument } from '../../src/graphql/generated/operations';
import { addressProblem } from '../../src/webhooks/webhook-target';
import { uniqueDatabaseName } from '../helpers/database';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createReferenceData } from '../helpers/timeline-fixtures';
import { deliveriesOf, FAST_WEBHOOKS, newFlight, subscribe } from './webhook-helpers';
import { eventually, WebhookReceiver } from './webhook-receiver';

const create = (testApp: TestApp, url: string) =>
  testApp.graphql(CreateWebhookEndpointDocument, { input: { url, eventTypes: null, flightIds: null, description: null, enabled: null } });

describe('webhook targets: no request to an address the operator did not allow', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp('webhook_ssrf', { ...FAST_WEBHOOKS, WEBHOOK_ALLOWED_PRIVATE_NETWORKS: '' });
  });
  afterAll(() => testApp.close());

  it.each([
    ['http://127.0.0.1:8080/hooks', 'loopback'],
    ['http://127.1/hooks', 'loopback'],
    ['http://2130706433/hooks', 'loopback'],
    ['http://[::1]/hooks', 'loopback'],
    ['http://localhost:8080/hooks', 'loopback'],
    ['http://0.0.0.0/hooks', 'unspecified'],
    ['http://[::]/hooks', 'unspecified'],
    ['http://10.1.2.3/hooks', 'private'],
    ['http://172.16.0.1/hooks', 'private'],
    ['http://192.168.1.20/hooks', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://[fe80::1]/hooks', 'link-local'],
    ['http://[fd00:ec2::254]/hooks', 'unique-local'],
    ['http://100.64.0.1/hooks', 'carrier-grade NAT'],
    ['http://224.0.0.1/hooks', 'multicast'],
    ['http://[ff02::1]/hooks', 'multicast'],
    ['http://255.255.255.255/hooks', 'broadcast'],
    ['http://[::ffff:127.0.0.1]/hooks', 'loopback'],
    ['http://[::ffff:169.254.169.254]/hooks', 'link-local'],
    ['http://[64:ff9b::a9fe:a9fe]/hooks', 'NAT64'],
    // IPv4-compatible (::/96): judged as the IPv4 address it carries.
    ['http://[::127.0.0.2]:4643/', 'loopback'],
    ['http://[::7f00:1]/hooks', 'loopback'],
    ['http://[::169.254.169.254]/hooks', 'link-local'],
    ['http://[::10.0.0.1]/hooks', 'private'],
    ['http://[::0.0.0.2]/hooks', 'unspecified'],
    // Translators and tunnels: refused whatever they carry.
    ['http://[64:ff9b::808:808]/hooks', 'NAT64'],
    ['http://[64:ff9b:1::a00:1]/hooks', 'NAT64'],
    ['http://[2002:7f00:1::1]/hooks', '6to4'],
    ['http://[2002:a9fe:a9fe::]/hooks', '6to4'],
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hooks', 'Teredo'],
    ['http://192.0.2.1/hooks', 'reserved'],
  ])('refuses %s (%s) with 400 naming url', async (url, range) => {
    const { status, body } = await create(testApp, url);
    expect(status).toBe(400);
    expect(body.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: [{ field: 'url', message: expect.stringMatching(new RegExp(`^url is refused: .*${range}.* address, which is refused unless WEBHOOK_ALLOWED_PRIVATE_NETWORKS allows it$`)) }],
    });
  });

  it('checks a URL changed by updateWebhookEndpoint the same way, and keeps the old one', async () => {
    const created = await create(testApp, 'https://93.184.216.34/hooks');
    const { id } = created.body.data!.createWebhookEndpoint.endpoint;
    const moved = await testApp.graphql(UpdateWebhookEndpointDocument, {
      id,
      input: { url: 'http://169.254.169.254/latest/meta-data/', eventTypes: undefined, flightIds: undefined, description: undefined, enabled: null },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.errors![0].extensions!.details).toEqual([{ field: 'url', message: expect.stringMatching(/^url is refused: 169\.254\.169\.254 is a link-local address/) }]);
    expect((await testApp.graphql(WebhookEndpointDocument, { id })).body.data!.webhookEndpoint!.url).toBe('https://93.184.216.34/hooks');
  });

  it('refuses a host that does not resolve, and accepts public addresses', async () => {
    const unknown = await create(testApp, 'http://no-such-host.invalid/hooks');
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors![0].extensions!.details).toEqual([{ field: 'url', message: expect.stringMatching(/^url is refused: no-such-host\.invalid does not resolve/) }]);
    for (const url of ['https://93.184.216.34/hooks', 'https://[2606:4700:4700::1111]:8443/hooks', 'http://[::ffff:8.8.8.8]/hooks']) {
      const { body } = await create(testApp, url);
      expect({ url, errors: body.errors }).toEqual({ url, errors: undefined });
    }
  });
});

describe('the allow-list WEBHOOK_ALLOWED_PRIVATE_NETWORKS', () => {
  it('lets through exactly the networks listed, IPv4-mapped forms included', () => {
    const policy = { allowedPrivateNetworks: ['127.0.0.1/32', '10.20.0.0/16', 'fd12::/16'] };
    expect(addressProblem('127.0.0.1', policy)).toBeUndefined();
    expect(addressProblem('::ffff:127.0.0.1', policy)).toBeUndefined();
    expect(addressProblem('::127.0.0.1', policy)).toBeUndefined();
    expect(addressProblem('::127.0.0.2', policy)).toBe('::127.0.0.2 (carrying 127.0.0.2) is a loopback address, which is refused unless WEBHOOK_ALLOWED_PRIVATE_NETWORKS allows it');
    expect(addressProblem('::8.8.8.8', policy)).toBeUndefined();
    expect(addressProblem('64:ff9b::a00:1', { allowedPrivateNetworks: ['10.0.0.0/8'] })).toMatch(/NAT64/);
    expect(addressProblem('64:ff9b::a00:1', { allowedPrivateNetworks: ['64:ff9b::/96'] })).toBeUndefined();
    expect(addressProblem('10.20.255.1', policy)).toBeUndefined();
    expect(addressProblem('fd12::5', policy)).toBeUndefined();
    expect(addressProblem('127.0.0.2', policy)).toMatch(/loopback/);
    expect(addressProblem('10.21.0.1', policy)).toMatch(/private/);
    expect(addressProblem('fd13::5', policy)).toMatch(/unique-local/);
    expect(addressProblem('::1', policy)).toMatch(/loopback/);
    expect(addressProblem('8.8.8.8', policy)).toBeUndefined();
    expect(addressProblem('8.8.8.8', { allowedPrivateNetworks: [] })).toBeUndefined();
    expect(addressProblem('127.0.0.1', { allowedPrivateNetworks: [] })).toMatch(/loopback/);
  });
});

describe('the target is checked again at each delivery', () => {
  const dbName = uniqueDatabaseName('webhook_recheck');
  let receiver: WebhookReceiver;
  let permissive: TestApp;
  let strict: TestApp;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    permissive = await startTestApp('webhook_recheck', FAST_WEBHOOKS, { dbName });
    strict = await startTestApp('webhook_recheck', { ...FAST_WEBHOOKS, WEBHOOK_ALLOWED_PRIVATE_NETWORKS: '' }, { dbName });
    await createReferenceData(strict);
  });
  afterAll(async () => {
    await strict.database.connection.dropDatabase();
    await strict.close();
    await receiver.close();
  });

  it('refuses a delivery to an address this process does not allow, although the endpoint was accepted elsewhere', async () => {
    // Accepted by a process whose operator allowed 127.0.0.1, then that process stops.
    const endpoint = await subscribe(permissive, receiver, '/hooks/recheck', { eventTypes: ['FLIGHT_CREATED'] });
    await permissive.close();

    await newFlight(strict, 'IFL950');
    const [failed] = await eventually(async () => {
      const log = await deliveriesOf(strict, endpoint.id);
      expect(log[0]?.status).toBe('FAILED');
      return log;
    });
    expect(failed.lastError).toBe('refused target: 127.0.0.1 is a loopback address, which is refused unless WEBHOOK_ALLOWED_PRIVATE_NETWORKS allows it');
    expect(failed.lastStatusCode).toBeNull();
    expect(receiver.requests).toEqual([]);
  });
});
