/** The OAuth scopes this service understands; a token grants them in its `scope` or `scp` claim. */
export const Scope = {
  /** Timeline routes and read queries. */
  TimelineRead: 'timeline:read',
  /** Reading passenger lists. */
  PassengersRead: 'passengers:read',
  /** Uploading and pushing passenger lists. */
  PassengersWrite: 'passengers:write',
  /** Flight, airport and resource mutations. */
  FlightsWrite: 'flights:write',
  /** Creating, reading and changing webhook endpoints, their secrets and their delivery log. */
  WebhooksManage: 'webhooks:manage',
  /** Reading the Prometheus metrics at /metrics. */
  MetricsRead: 'metrics:read',
} as const;

export type Scope = (typeof Scope)[keyof typeof Scope];

/** Every scope, in a stable order (development tokens carry all of them). */
export const ALL_SCOPES: readonly Scope[] = Object.freeze(Object.values(Scope));

export function isKnownScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}
