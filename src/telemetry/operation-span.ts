import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { OperationDefinitionNode } from 'graphql';
import { tracingStarted } from './tracing-state';

const tracer = trace.getTracer('broker-flight-gateway');

/**
 * Runs a GraphQL operation that bypasses graphql-js's `execute` (a compiled graphql-jit query) in a
 * span of its own, named and described as the GraphQL instrumentation names the spans of `execute`
 * (`query TimelineEvents`), so a trace shows the operation whichever executor ran it, with the
 * database commands beneath it. Only the OpenTelemetry API is involved, and only when tracing was
 * started (an OTLP endpoint is configured): otherwise the operation simply runs.
 */
export function withOperationSpan<T>(operation: OperationDefinitionNode, run: () => Promise<T>): Promise<T> {
  // Without the SDK the API's no-op span would still cost a context and a closure per operation.
  if (!tracingStarted()) return run();
  const type = operation.operation;
  const name = operation.name?.value;
  const attributes = { 'graphql.operation.type': type, ...(name ? { 'graphql.operation.name': name } : {}), 'app.graphql.executor': 'graphql-jit' };
  return tracer.startActiveSpan(name ? `${type} ${name}` : type, { attributes }, async (span) => {
    try {
      return await run();
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
