import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/** What the driver (6.4 and later) shows the instrumentation as the collection of most commands. */
const COMMAND_NAMESPACE = '$cmd';
/** The collection a statement of commandStatement names: the value of its first field. */
const NAMED_COLLECTION = /^\{"[\w$]+":"([^"]+)"/;

/**
 * Wraps the exporter so a MongoDB command span names its collection (`aggregate flights`, with
 * `db.collection.name`), as the conventions want, where the instrumentation could only see the
 * driver's `$cmd` namespace; the collection is read from the span's own statement. Done at export,
 * off the requests' path; other spans pass unchanged.
 */
export function namingCollections(exporter: SpanExporter): SpanExporter {
  return {
    export: (spans, done) => exporter.export(spans.map(withCollection), done),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

function withCollection(span: ReadableSpan): ReadableSpan {
  if (span.attributes['db.collection.name'] !== COMMAND_NAMESPACE) return span;
  const collection = NAMED_COLLECTION.exec(String(span.attributes['db.query.text'] ?? ''))?.[1];
  if (!collection || collection === '?') return span;
  const operation = span.attributes['db.operation.name'];
  // The span itself is the SDK's and already ended: a view of it with the two fields replaced.
  return Object.create(span, {
    name: { value: operation ? `${String(operation)} ${collection}` : collection },
    attributes: { value: { ...span.attributes, 'db.collection.name': collection } },
  }) as ReadableSpan;
}
