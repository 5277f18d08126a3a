import { ConfigError } from './config-error';
import { oneOf } from './values';

export const TRACING_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
export type TracingProtocol = (typeof TRACING_PROTOCOLS)[number];
export const DEFAULT_SERVICE_NAME = 'broker-flight-gateway';

/**
 * OpenTelemetry traces, on when an OTLP endpoint is set. The SDK reads the standard OTEL_* variables
 * itself (as the specification has it); these are the ones the service checks first or defaults.
 */
export interface TracingConfig {
  /** Where spans go (for the log, without credentials): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, else OTEL_EXPORTER_OTLP_ENDPOINT with `/v1/traces` (http) added. */
  endpoint: string;
  /** OTLP transport: `http/protobuf` (the default), `http/json` or `grpc`. */
  protocol: TracingProtocol;
  /** `service.name` of every span; undefined when OTEL_RESOURCE_ATTRIBUTES names it. */
  serviceName?: string;
}

/** The OTEL_* variables as declared in src/config/variables.ts (trimmed text; checked here, where the one in force is known). */
export interface TracingVariables {
  sdkDisabled?: string;
  tracesExporter?: string;
  endpoint?: string;
  tracesEndpoint?: string;
  protocol: string;
  tracesProtocol?: string;
  serviceName?: string;
  resourceAttributes?: string;
}

const PROTOCOL = oneOf(TRACING_PROTOCOLS);

/**
 * Whether, and where, to export traces. The signal's own variable (…_TRACES_…) wins over the
 * general one, and only the one in force is checked, as the SDK reads only that one.
 */
export function tracingFrom(settings: TracingVariables): TracingConfig | undefined {
  if (settings.sdkDisabled?.toLowerCase() === 'true' || settings.tracesExporter?.toLowerCase() === 'none') return undefined;
  const variable = settings.tracesEndpoint ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const raw = settings.tracesEndpoint ?? settings.endpoint;
  if (!raw) return undefined;
  const protocolVariable = settings.tracesProtocol ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = PROTOCOL.safeParse(settings.tracesProtocol ?? settings.protocol);
  if (!protocol.success) throw new ConfigError(protocolVariable, protocol.error.issues[0].message);
  const endpoint = shownEndpoint(raw, variable, variable === 'OTEL_EXPORTER_OTLP_ENDPOINT' && protocol.data !== 'grpc');
  const namedByAttributes = /(^|,)\s*service\.name\s*=/.test(settings.resourceAttributes ?? '');
  return { endpoint, protocol: protocol.data, serviceName: settings.serviceName ?? (namedByAttributes ? undefined : DEFAULT_SERVICE_NAME) };
}

/** The endpoint without credentials (they are the exporter's business, not the log's), with the signal path when `addPath`. */
function shownEndpoint(raw: string, variable: string, addPath: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(variable, `must be an absolute http(s) URL such as http://otel-collector:4318, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(variable, `must be an http(s) URL such as http://otel-collector:4318, got "${raw}"`);
  }
  url.username = '';
  url.password = '';
  const shown = url.search || url.hash ? url.toString() : `${url.origin}${url.pathname === '/' ? '' : url.pathname}`;
  // The specification's rule for the general variable: signal paths are appended to it (http only).
  return addPath ? `${shown.replace(/\/+$/, '')}/v1/traces` : shown;
}
