import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getOperationAST, print } from 'graphql';
import { TimelineLegacyEventsDocument } from '../../src/graphql/generated/operations';
import { freePort, killAll, ROOT, startProcess, waitFor, type Started } from '../app/child-processes';
import { TIMELINE_URL } from '../helpers/auth-requests';
import { testDatabaseUri, uniqueDatabaseName } from '../helpers/database';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import { OtlpReceiver, type ReceivedSpan } from './otlp-receiver';

jest.setTimeout(300_000);

const OPERATION = getOperationAST(TimelineLegacyEventsDocument)!.name!.value;
const FLIGHT_NUMBER = 'TRC4242';

/** The service as a process of its own (`src/main.ts`), recording at exit which OpenTelemetry files it loaded. */
interface Service extends Started {
  port: number;
  loadedModules(): string[];
}

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** The chain of parents of `span` within its trace, nearest first. */
function ancestors(span: ReceivedSpan, trace: ReceivedSpan[]): ReceivedSpan[] {
  const chain: ReceivedSpan[] = [];
  let parent = trace.find((candidate) => candidate.spanId === span.parentSpanId);
  while (parent && chain.length < trace.length) {
    chain.push(parent);
    const next = parent.parentSpanId;
    parent = trace.find((candidate) => candidate.spanId === next);
  }
  return chain;
}

/** The parts of one REST request's trace the issue names; undefined until they have all arrived. */
function requestTrace(receiver: OtlpReceiver, traceId: string) {
  const spans = receiver.trace(traceId);
  const server = spans.find((span) => span.kind === 2);
  const operation = spans.find((span) => span.name === `query ${OPERATION}`);
  const commands = spans.filter((span) => span.attributes['db.system.name'] === 'mongodb');
  if (!server || !operation || commands.length === 0) return undefined;
  return { spans, server, operation, commands };
}

describe('traces: OpenTelemetry exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set', () => {
  const receiver = new OtlpReceiver();
  const dbName = uniqueDatabaseName('tracing');
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'tracing-test-'));
  let testApp: TestApp;
  let endpoint: string;
  let token: string;

  beforeAll(async () => {
    endpoint = await receiver.start();
    testApp = await startTestApp('tracing', {}, { dbName });
    await createReferenceData(testApp);
    await createFlight(testApp, { flightNumber: FLIGHT_NUMBER, resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-06-10T06:00:00Z', arrivalAt: '2026-06-10T07:10:00Z' });
    token = await testApp.token(['timeline:read'], 'trace-tester');
  });

  afterAll(async () => {
    await killAll();
    await receiver.stop();
    await testApp.database.connection.dropDatabase();
    await testApp.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  async function startService(name: string, env: Record<string, string>): Promise<Service> {
    const port = await freePort();
    const modulesFile = path.join(scratch, `${name}.json`);
    const started = startProcess(process.execPath, ['-r', './scripts/register-ts.cjs', '-r', path.join(ROOT, 'test/fixtures/loaded-modules.cjs'), 'src/main.ts'], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        HOST: '127.0.0.1',
        NODE_ENV: 'development',
        MONGODB_URI: testDatabaseUri(dbName),
        JWT_SECRET: TEST_SECRET,
        PUBLIC_HOST: 'broker.test',
        TIMEZONE: 'Europe/Rome',
        RATE_LIMIT_PER_MINUTE: '0',
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
        LOADED_MODULES_FILE: modulesFile,
        ...env,
      },
    });
    await waitFor(() => /listening on/.test(started.output()) || started.child.exitCode !== null, 120_000);
    if (started.child.exitCode !== null) throw new Error(`the service did not start:\n${started.output()}`);
    return { ...started, port, loadedModules: () => JSON.parse(readFileSync(modulesFile, 'utf8')) as string[] };
  }

  async function stop(service: Service): Promise<void> {
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  }

  async function timeline(service: Service, headers: Record<string, string> = {}) {
    const response = await fetch(`http://127.0.0.1:${service.port}${TIMELINE_URL}`, { headers: { Authorization: `Bearer ${token}`, ...headers } });
    const body = (await response.json()) as { title?: string }[];
    expect(response.status).toBe(200);
    expect(body).toHaveLength(1);
    return { requestId: response.headers.get('x-request-id')! };
  }

  /** The REST route's operation, sent to /graphql as a GET (its first sighting there). */
  async function graphqlTimeline(service: Service, headers: Record<string, string>) {
    const range = new URL(TIMELINE_URL, 'http://localhost').searchParams;
    const search = new URLSearchParams({
      query: print(TimelineLegacyEventsDocument),
      variables: JSON.stringify({ view: 'CALENDAR', start: range.get('start'), end: range.get('end') }),
    });
    const response = await fetch(`http://127.0.0.1:${service.port}/graphql?${search}`, { headers: { Authorization: `Bearer ${token}`, ...headers } });
    const body = (await response.json()) as { data?: { timelineEvents: unknown[] } };
    expect(response.status).toBe(200);
    expect(body.data?.timelineEvents).toHaveLength(1);
    return { requestId: response.headers.get('x-request-id')! };
  }

  /** The service's JSON log lines (the development token banner and other text left out). */
  function logLines(service: Service): Record<string, unknown>[] {
    return service
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  it('continues an incoming traceparent: one trace holds the HTTP server span, the GraphQL operation and its database commands, and the request\'s log lines carry its id', async () => {
    const service = await startService('traced', {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    expect(logLines(service).some((line) => line.msg === 'exporting traces over OTLP' && line.endpoint === `${endpoint}/v1/traces`)).toBe(true);

    // A document's first sighting on /graphql runs through graphql-js (the instrumented `execute`);
    // the REST route runs the same operation compiled (graphql-jit, prepared at start-up): both
    // must show the operation.
    const requests: { executor: string; traceId: string; callerSpanId: string; requestId: string }[] = [];
    for (const executor of ['graphql-js', 'graphql-jit']) {
      const traceId = hex(16);
      const callerSpanId = hex(8);
      const headers = { traceparent: `00-${traceId}-${callerSpanId}-01` };
      const { requestId } = executor === 'graphql-js' ? await graphqlTimeline(service, headers) : await timeline(service, headers);
      requests.push({ executor, traceId, callerSpanId, requestId });
    }
    await waitFor(() => requests.every(({ traceId }) => requestTrace(receiver, traceId) !== undefined), 30_000).catch((error: unknown) => {
      throw new Error(`${String(error)}; spans received: ${JSON.stringify(receiver.spans.map(({ traceId, name, kind }) => ({ traceId, name, kind })))}; refused: ${receiver.refused.join(', ')}`);
    });

    const lines = logLines(service);
    for (const { executor, traceId, callerSpanId, requestId } of requests) {
      const { spans, server, operation, commands } = requestTrace(receiver, traceId)!;
      // The caller's span is the server span's parent: the trace is continued, not restarted.
      expect(server.parentSpanId).toBe(callerSpanId);
      expect(server.name).toMatch(/^GET\b/);
      expect(server.resource['service.name']).toBe('broker-flight-gateway');
      expect(spans.filter((span) => span.kind === 2)).toHaveLength(1);
      expect(ancestors(operation, spans)).toContain(server);
      expect(operation.attributes['graphql.operation.name']).toBe(OPERATION);
      expect(operation.attributes['app.graphql.executor']).toBe(executor === 'graphql-jit' ? 'graphql-jit' : undefined);
      const operations = commands.map((command) => command.attributes['db.operation.name']);
      expect(operations.some((name) => name === 'find' || name === 'aggregate')).toBe(true);
      expect(commands.map((command) => command.attributes['db.collection.name'])).toContain('flights');
      for (const command of commands) {
        expect(ancestors(command, spans)).toContain(operation);
        expect(command.attributes['db.namespace']).toBe(dbName);
        // Named by their collection (the driver shows the instrumentation only `$cmd`).
        expect(command.name).toBe(`${String(command.attributes['db.operation.name'])} ${String(command.attributes['db.collection.name'])}`);
        expect(command.attributes['db.collection.name']).not.toBe('$cmd');
        // Statements show the command's shape, never the data (flight numbers, passengers' names).
        expect(JSON.stringify(command.attributes)).not.toContain(FLIGHT_NUMBER);
      }

      const requestLines = lines.filter((line) => JSON.stringify(line).includes(requestId));
      expect(requestLines.length).toBeGreaterThan(0);
      for (const line of requestLines) {
        expect(line.trace_id).toBe(traceId);
        expect(spans.map((span) => span.spanId)).toContain(line.span_id);
      }
    }
    // Probes are not traced.
    const spansBefore = receiver.spans.length;
    expect((await fetch(`http://127.0.0.1:${service.port}/healthz`)).status).toBe(200);
    await stop(service);
    expect(receiver.spans.slice(spansBefore).filter((span) => span.kind === 2)).toEqual([]);
    expect(receiver.refused).toEqual([]);
    expect(service.loadedModules().some((file) => file.includes(`${path.sep}@opentelemetry${path.sep}sdk-node${path.sep}`))).toBe(true);
  });

  it('without OTEL_EXPORTER_OTLP_ENDPOINT loads no OpenTelemetry SDK or instrumentation (only the API, whose spans are no-ops), patches nothing and says nothing of traces', async () => {
    const service = await startService('untraced', {});
    const traceId = hex(16);
    const { requestId } = await timeline(service, { traceparent: `00-${traceId}-${hex(8)}-01` });
    await timeline(service);
    await stop(service);

    const loaded = service.loadedModules();
    expect(loaded.filter((file) => !file.includes(`${path.sep}@opentelemetry${path.sep}api${path.sep}`))).toEqual([]);
    const lines = logLines(service);
    expect(lines.filter((line) => JSON.stringify(line).includes(requestId)).length).toBeGreaterThan(0);
    expect(lines.filter((line) => 'trace_id' in line || /trac(es|ing)/.test(String(line.msg)))).toEqual([]);
  });
});
