/**
 * The tables of docs/configuration.md and the blocks of .env.example, in order. A variable names
 * its section (src/config/variables.ts); `note` is printed under the section's table.
 */
export const SECTIONS = {
  server: { title: 'Server' },
  logs: { title: 'Logs and metrics' },
  database: { title: 'Database' },
  http: { title: 'HTTP clients' },
  auth: {
    title: 'Tokens',
    note:
      'Exactly one of `JWT_SECRET`, `JWT_PUBLIC_KEY`, `JWKS_URL` may be set. With none, outside production, start-up generates a per-process secret and prints a token; in production it refuses to start.',
  },
  requests: { title: 'Requests and GraphQL limits' },
  passengers: { title: 'Passenger lists and uploads' },
  exports: { title: 'Manifests and exports' },
  changes: { title: 'Change feed' },
  webhooks: { title: 'Webhooks' },
  subscriptions: { title: 'Subscriptions' },
  tracing: {
    title: 'Traces',
    note:
      'Every other `OTEL_*` variable is read by the OpenTelemetry SDK itself, as the specification defines it: `OTEL_EXPORTER_OTLP_HEADERS` (collector credentials), `OTEL_TRACES_SAMPLER`/`_ARG`, `OTEL_BSP_*` (batching), `OTEL_PROPAGATORS`.',
  },
} as const satisfies Record<string, { title: string; note?: string }>;

export type SectionId = keyof typeof SECTIONS;
