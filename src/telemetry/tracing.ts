import { context, diag, DiagLogLevel, ROOT_CONTEXT, type DiagLogger } from '@opentelemetry/api';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { TracingConfig } from '../config';
import type { Logger } from '../logger';
import { namingCollections } from './mongodb-collections';
import { commandStatement } from './mongodb-statement';
import { markTracingStarted } from './tracing-state';

/** Requests no one wants a trace of: probes and scrapes, several a second from every watcher. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

let sdk: NodeSDK | undefined;

/**
 * Starts the OpenTelemetry Node SDK: spans of incoming and outgoing HTTP, Express routes, GraphQL
 * operations and MongoDB commands, exported over OTLP as the standard OTEL_* variables say (the SDK
 * and the exporter read them: endpoint, headers, sampler, batch delays, resource attributes; the
 * configuration checked the protocol). Must run before http, express, graphql, mongodb and pino are
 * first required: the instrumentations patch them as they load.
 */
export function startTracing(settings: TracingConfig): void {
  // Each exporter reads the OTEL_EXPORTER_OTLP_* variables (endpoint, headers, timeout, compression).
  const exporter = settings.protocol === 'grpc' ? new GrpcTraceExporter() : settings.protocol === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter();
  sdk = new NodeSDK({
    serviceName: settings.serviceName,
    // Batched as OTEL_BSP_* say.
    traceExporter: namingCollections(exporter),
    // Traces only: metrics are served at /metrics, logs go to stdout carrying the trace id.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0]),
      }),
      new ExpressInstrumentation(),
      // One span per operation (and its parse and validate), none per field: a 31-day timeline
      // resolves some 100,000 fields.
      new GraphQLInstrumentation({ ignoreResolveSpans: true, mergeItems: true, allowValues: false }),
      // Commands of a traced request only: the change feed's polls and the webhook and outbox sweeps
      // would otherwise be a trace every tenth of a second. Values never reach a span (passengers'
      // data): the statement shows the command's shape and its collection, bounded in size.
      new MongoDBInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false, dbStatementSerializer: commandStatement }),
      // trace_id, span_id and trace_flags in every log line written while a span is active.
      new PinoInstrumentation({ disableLogSending: true }),
    ],
  });
  sdk.start();
  markTracingStarted();
}

/** Least time between two log lines about the SDK's troubles (a collector that is down fails every batch). */
const REPORT_INTERVAL_MS = 60_000;

/**
 * Sends the SDK's own warnings and errors (an unreachable collector, a refused export) to the
 * service's log: one line, then at most one a minute saying how many more there were.
 */
export function reportTracing(logger: Logger, settings: TracingConfig): void {
  const log = logger.child({ component: 'tracing' });
  let lastReport = 0;
  let suppressed = 0;
  const report = (level: 'error' | 'warn', message: string) => {
    const now = Date.now();
    if (now - lastReport < REPORT_INTERVAL_MS) {
      suppressed += 1;
      return;
    }
    lastReport = now;
    const more = suppressed;
    suppressed = 0;
    // Outside any request's context: the line is about the exporter, not about the request whose
    // timer happened to start the batch.
    context.with(ROOT_CONTEXT, () => log[level]({ problem: problemOf(message), ...(more ? { suppressed: more } : {}) }, 'OpenTelemetry reported a problem (traces may be lost)'));
  };
  const bridge: DiagLogger = {
    error: (message) => report('error', message),
    warn: (message) => report('warn', message),
    info: () => undefined,
    debug: () => undefined,
    verbose: () => undefined,
  };
  diag.setLogger(bridge, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  log.info({ endpoint: settings.endpoint, protocol: settings.protocol, serviceName: settings.serviceName }, 'exporting traces over OTLP');
}

/** The SDK hands errors over as JSON text with their stack: the message is what a reader needs. */
function problemOf(message: string): string {
  try {
    const parsed = JSON.parse(message) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // Plain text already.
  }
  return message;
}

/** How long shutdown waits for the collector to take the last spans. */
const FLUSH_TIMEOUT_MS = 5000;

/**
 * Exports the spans still buffered and stops, so the last requests' spans are not lost; a collector
 * that is down or slow delays the exit by FLUSH_TIMEOUT_MS at most.
 */
export async function stopTracing(logger: Logger): Promise<void> {
  if (!sdk) return;
  const stopping = sdk.shutdown().then(
    () => 'flushed' as const,
    (error: unknown) => ({ error }),
  );
  sdk = undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), FLUSH_TIMEOUT_MS)));
  const outcome = await Promise.race([stopping, late]);
  clearTimeout(timer);
  if (outcome === 'late') logger.warn({ component: 'tracing', timeoutMs: FLUSH_TIMEOUT_MS }, 'the trace collector did not take the last spans in time: they are dropped');
  else if (outcome !== 'flushed') logger.warn({ component: 'tracing', err: outcome.error }, 'the last spans could not be exported');
}
