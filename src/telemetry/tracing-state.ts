/**
 * Whether this process exports traces (startTracing ran). A module of its own so that code which
 * makes spans can ask without loading the SDK (src/telemetry/tracing.ts loads it all).
 */
let started = false;

export function markTracingStarted(): void {
  started = true;
}

export function tracingStarted(): boolean {
  return started;
}
