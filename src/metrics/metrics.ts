import type { MongoClient } from 'mongodb';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds: from a fast in-memory read to a request that waited for its time limit. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** HTTP methods kept as label values; anything else (a client's invention) counts as OTHER. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Most distinct GraphQL operation names kept as label values; later new names count as `other`. */
const MAX_OPERATION_NAMES = 100;
const OPERATION_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Most distinct MongoDB command names kept as label values (the service sends about twenty). */
const MAX_COMMAND_NAMES = 50;

/** A numeric source read when Prometheus scrapes (no bookkeeping on the hot path). */
export type GaugeSource = () => number | Promise<number>;

/**
 * The service's Prometheus metrics, in a registry of their own (each app built in a process, as
 * tests do, has its own). Label values are bounded: route templates, not paths; operation names
 * capped; no id, path or free text of a client's ever becomes a label.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly operationNames = new Set<string>();
  private readonly commandNames = new Set<string>();

  private readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by route template, method and status: duration from the first byte read to the last byte sent (its _count is the request count)',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  private readonly graphqlDuration = new Histogram({
    name: 'graphql_operation_duration_seconds',
    help: 'GraphQL operations (from /graphql and the REST facade) by operation name, type and outcome (success, error, invalid): duration from request to response',
    labelNames: ['operation_name', 'operation_type', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  private readonly mongoDuration = new Histogram({
    name: 'mongodb_command_duration_seconds',
    help: 'MongoDB commands by name and outcome (success, failure): round trip as the driver measured it',
    labelNames: ['command', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  private readonly poolInUse = new Gauge({
    name: 'mongodb_pool_connections_in_use',
    help: 'Connections of the MongoDB driver pool checked out by an operation now',
    registers: [this.registry],
  });

  private readonly poolOpen = new Gauge({
    name: 'mongodb_pool_connections_open',
    help: 'Connections of the MongoDB driver pool open now (in use or idle)',
    registers: [this.registry],
  });

  private readonly uploadDuration = new Histogram({
    name: 'passenger_upload_parse_duration_seconds',
    help: 'Passenger spreadsheet reads by outcome (read, refused): the time spent reading the file',
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  private readonly pdfRenderDuration = new Histogram({
    name: 'passenger_pdf_render_duration_seconds',
    help: 'PDF passenger manifests that had their turn to be rendered, by outcome (rendered, or stopped because the client went away): the time they held their turn',
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  private readonly feedLag = new Histogram({
    name: 'change_feed_lag_seconds',
    help: 'Change events handed to this process\'s subscribers: time from the change to its delivery here (the change feed\'s lag)',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });

  private readonly webhookDeliveries = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts of this process by outcome: delivered (a 2xx), retrying (failed, another attempt is scheduled), failed (failed, the retry schedule is spent)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly jwksFetches = new Counter({
    name: 'jwks_key_set_fetches_total',
    help: 'Fetches of the identity provider key set (JWKS_URL) by outcome (success, failure: an error, a time-out, not a key set)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor() {
    // Heap, RSS, event-loop delay (p50/p90/p99 and max), GC, handles: prom-client's Node set.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
  }

  /** Records one finished HTTP request; `route` is a template ('/api/broker/v0/upload/:flightId') or 'unmatched'. */
  observeHttp(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe({ method: METHODS.has(method) ? method : 'OTHER', route, status: String(status) }, seconds);
  }

  /** Records one GraphQL operation; names beyond the first MAX_OPERATION_NAMES count as `other`. */
  observeGraphQL(operationName: string | null | undefined, operationType: string, outcome: 'success' | 'error' | 'invalid', seconds: number): void {
    this.graphqlDuration.observe({ operation_name: this.boundedName(operationName), operation_type: operationType, outcome }, seconds);
  }

  observeUpload(outcome: 'read' | 'refused', seconds: number): void {
    this.uploadDuration.observe({ outcome }, seconds);
  }

  observePdfRender(outcome: 'rendered' | 'stopped', seconds: number): void {
    this.pdfRenderDuration.observe({ outcome }, seconds);
  }

  observeFeedLag(seconds: number): void {
    this.feedLag.observe(Math.max(0, seconds));
  }

  countWebhookAttempt(outcome: 'delivered' | 'retrying' | 'failed'): void {
    this.webhookDeliveries.inc({ outcome });
  }

  countJwksFetch(outcome: 'success' | 'failure'): void {
    this.jwksFetches.inc({ outcome });
  }

  /** A gauge whose value is read from `source` at each scrape. */
  gauge(name: string, help: string, source: GaugeSource): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        // A source that cannot be read (the database is down) shows as NaN; the scrape still answers.
        this.set(await Promise.resolve().then(source).catch(() => Number.NaN));
      },
    });
  }

  /**
   * Listens to a MongoDB client's command events (the client must have `monitorCommands: true`)
   * and to its pool's events (always emitted).
   */
  observeMongoClient(client: MongoClient): void {
    client.on('commandSucceeded', (event) => this.mongoDuration.observe({ command: this.boundedCommand(event.commandName), outcome: 'success' }, event.duration / 1000));
    client.on('commandFailed', (event) => this.mongoDuration.observe({ command: this.boundedCommand(event.commandName), outcome: 'failure' }, event.duration / 1000));
    client.on('connectionCheckedOut', () => this.poolInUse.inc());
    client.on('connectionCheckedIn', () => this.poolInUse.dec());
    client.on('connectionCreated', () => this.poolOpen.inc());
    client.on('connectionClosed', () => this.poolOpen.dec());
  }

  /** The text Prometheus scrapes, and its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private boundedName(name: string | null | undefined): string {
    if (!name) return 'anonymous';
    if (!OPERATION_NAME.test(name)) return 'other';
    if (this.operationNames.has(name)) return name;
    if (this.operationNames.size >= MAX_OPERATION_NAMES) return 'other';
    this.operationNames.add(name);
    return name;
  }

  private boundedCommand(name: string): string {
    if (this.commandNames.has(name)) return name;
    if (this.commandNames.size >= MAX_COMMAND_NAMES || !OPERATION_NAME.test(name)) return 'other';
    this.commandNames.add(name);
    return name;
  }
}
