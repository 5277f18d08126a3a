import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createMetricsServer } from '../../src/metrics/metrics-server';
import { Metrics } from '../../src/metrics/metrics';
import { TIMELINE_URL } from '../helpers/auth-requests';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createReferenceData } from '../helpers/timeline-fixtures';
import { FAST_WEBHOOKS, newFlight, subscribe } from '../webhooks/webhook-helpers';
import { eventually, WebhookReceiver } from '../webhooks/webhook-receiver';

/** The samples of one metric family in a Prometheus text exposition: labels → value. */
function samples(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .map((line) => {
      const [, rawLabels = '', value] = /^[^{\s]+(?:\{(.*)\})?\s+(\S+)$/.exec(line)!;
      const labels = Object.fromEntries([...rawLabels.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, val]) => [key, val]));
      return { labels, value: Number(value) };
    });
}

function sampleValue(text: string, name: string, labels: Record<string, string>): number | undefined {
  return samples(text, name).find((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value;
}

describe('Prometheus metrics at /metrics', () => {
  let t: TestApp;
  let metrics: Metrics;
  let scrapeToken: string;

  beforeAll(async () => {
    metrics = new Metrics();
    t = await startTestApp('metrics', FAST_WEBHOOKS, { metrics });
    scrapeToken = await t.token(['metrics:read'], 'prometheus');
  });
  afterAll(() => t.close());

  const scrape = async () => {
    const response = await request(t.app).get('/metrics').set('Authorization', `Bearer ${scrapeToken}`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain;.*version=0\.0\.4/);
    expect(response.headers['cache-control']).toBe('no-store');
    return response.text;
  };

  it('needs a token carrying metrics:read: 401 without one, 403 with another scope', async () => {
    expect((await request(t.app).get('/metrics')).status).toBe(401);
    const other = await t.token(['timeline:read']);
    const refused = await request(t.app).get('/metrics').set('Authorization', `Bearer ${other}`);
    expect(refused.status).toBe(403);
    expect(refused.headers['www-authenticate']).toContain('metrics:read');
  });

  it('counts HTTP requests by route template, method and status, never by the path sent', async () => {
    const token = await t.token();
    await request(t.app).get(TIMELINE_URL).set('Authorization', `Bearer ${token}`).expect(200);
    await request(t.app).get('/api/broker/v0/flight/987654/passenger').set('Authorization', `Bearer ${token}`).expect(404);
    await request(t.app).get('/api/broker/v0/flight/987654/passenger');
    await request(t.app).get('/no/such/path/123456').expect(404);
    const text = await scrape();
    expect(sampleValue(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/broker/v0/calendar/timeline/event', status: '200' })).toBe(1);
    expect(sampleValue(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/broker/v0/flight/:flight_id/passenger', status: '404' })).toBe(1);
    expect(sampleValue(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/broker/v0/flight/:flight_id/passenger', status: '401' })).toBe(1);
    expect(sampleValue(text, 'http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(text).not.toMatch(/987654|123456/);
  });

  it('counts GraphQL operations by name, type and outcome (the REST facade included), and bounds the names', async () => {
    const token = await t.token();
    const post = (body: object) => request(t.app).post('/graphql').set('Authorization', `Bearer ${token}`).send(body);
    await post({ query: 'query ListResources { resources { id } }' }).expect(200);
    await post({ query: '{ resources { nope } }' }).expect(400);
    await post({ query: 'mutation Broken { deleteFlight(id: "not-a-number") }' });
    for (let i = 0; i < 120; i += 1) await post({ query: `query Name${i} { resources { id } }` });
    const text = await scrape();
    expect(sampleValue(text, 'graphql_operation_duration_seconds_count', { operation_name: 'ListResources', operation_type: 'query', outcome: 'success' })).toBe(1);
    expect(sampleValue(text, 'graphql_operation_duration_seconds_count', { operation_name: 'anonymous', outcome: 'invalid' })).toBeGreaterThanOrEqual(1);
    // The facade runs its named operations through the same server.
    expect(samples(text, 'graphql_operation_duration_seconds_count').some((s) => s.labels.operation_type === 'query' && s.labels.operation_name !== 'ListResources' && !/^Name\d+$/.test(s.labels.operation_name) && s.labels.outcome === 'success')).toBe(true);
    const names = new Set(samples(text, 'graphql_operation_duration_seconds_count').map((s) => s.labels.operation_name));
    // At most 100 names a client chose, then `anonymous` and `other`.
    expect(names.size).toBeLessThanOrEqual(102);
    expect(sampleValue(text, 'graphql_operation_duration_seconds_count', { operation_name: 'other', operation_type: 'query', outcome: 'success' })).toBeGreaterThan(0);
  });

  it('times MongoDB commands by name, and shows the pool, the event loop, heap and RSS', async () => {
    const text = await scrape();
    expect(sampleValue(text, 'mongodb_command_duration_seconds_count', { command: 'find', outcome: 'success' })).toBeGreaterThan(0);
    expect(samples(text, 'mongodb_pool_connections_open')[0].value).toBeGreaterThanOrEqual(1);
    expect(samples(text, 'mongodb_pool_connections_in_use')[0].value).toBeGreaterThanOrEqual(0);
    for (const name of ['nodejs_eventloop_lag_p99_seconds', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes']) {
      expect(samples(text, name)[0]?.value).toBeGreaterThan(0);
    }
  });

  it('counts webhook attempts by outcome and shows the deliveries still pending', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      await createReferenceData(t);
      await subscribe(t, receiver, '/ok');
      await newFlight(t, 'MET100');
      const text = await eventually(async () => {
        const scraped = await scrape();
        expect(sampleValue(scraped, 'webhook_delivery_attempts_total', { outcome: 'delivered' })).toBeGreaterThanOrEqual(1);
        return scraped;
      });
      expect(receiver.received.length).toBeGreaterThanOrEqual(1);
      expect(samples(text, 'webhook_deliveries_pending')[0].value).toBe(0);
      // The flight's creation went through this process's change feed.
      expect(sampleValue(text, 'change_feed_lag_seconds_count', {})).toBeGreaterThanOrEqual(1);
    } finally {
      await receiver.close();
    }
  });

  it('times spreadsheet reads by outcome, and shows the WebSocket connections and subscriptions', async () => {
    const token = await t.token();
    await createReferenceData(t);
    const flightId = await newFlight(t, 'MET200');
    const template = await request(t.app).get('/api/broker/v0/upload/template.xlsx').buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
    await request(t.app).post(`/api/broker/v0/upload/${flightId}`).set('Authorization', `Bearer ${token}`).attach('paxlist', template.body as Buffer, 'passengers.xlsx').expect(200);
    await request(t.app).post(`/api/broker/v0/upload/${flightId}`).set('Authorization', `Bearer ${token}`).attach('paxlist', Buffer.from('not a list'), 'passengers.xlsx');
    const text = await scrape();
    expect(sampleValue(text, 'passenger_upload_parse_duration_seconds_count', { outcome: 'read' })).toBe(1);
    expect(sampleValue(text, 'passenger_upload_parse_duration_seconds_count', { outcome: 'refused' })).toBe(1);
    expect(samples(text, 'websocket_connections')[0].value).toBe(0);
    expect(samples(text, 'graphql_subscriptions')[0].value).toBe(0);
  });

  it('on METRICS_PORT: the exposition without a token, nothing else', async () => {
    const server = createMetricsServer(metrics);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const answer = await fetch(`${base}/metrics`);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('http_request_duration_seconds_bucket');
      expect((await fetch(`${base}/graphql`)).status).toBe(404);
    } finally {
      server.close();
    }
  });
});
