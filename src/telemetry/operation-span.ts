import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { OperationDefinitionNode } from 'graphql';

const tracer = trace.getTracer('broker-flight-gateway');

/**
 * Runs a GraphQL operation that bypasses graphql-js's `execute` (a compiled graphql-jit query) in a
 * span of its own, named and described as the GraphQL instrumentation names the spans of `execute`
 * (`query TimelineEvents`), so a trace shows the operation whichever executor ran it, with the
 * database commands beneath it. Only the OpenTelemetry API is involved: without a configured SDK
 * (no OTLP endpoint) the span is the API's no-op and costs next to nothing.
 */
export function withOperationSpan<T>(operation: OperationDefinitionNode, run: () => Promise<T>): Promise<T> {
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
