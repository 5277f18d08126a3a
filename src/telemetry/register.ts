/**
 * Imported by main.ts before anything else of the service: with an OTLP endpoint configured it
 * starts tracing, which must patch http, express, graphql, mongodb and pino before their first
 * require. Without one nothing of the OpenTelemetry SDK is even loaded, and nothing is patched.
 */
import { ConfigError, tracingSettings, type TracingConfig } from '../config';
import type { Logger } from '../logger';

type TracingModule = typeof import('./tracing');

let settings: TracingConfig | undefined;
try {
  settings = tracingSettings(process.env);
} catch (error) {
  // loadConfig meets the same bad value and refuses to start, in the service's log format.
  if (!(error instanceof ConfigError)) throw error;
}

// A plain require, not an import: only this branch may load the SDK, and it must load now,
// synchronously, before main.ts goes on to require what it patches.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const tracing: TracingModule | undefined = settings ? (require('./tracing') as TracingModule) : undefined;
if (settings) tracing?.startTracing(settings);

/** Says where traces go (and routes the SDK's warnings to `logger`); nothing when tracing is off. */
export function announceTracing(logger: Logger): void {
  if (tracing && settings) tracing.reportTracing(logger, settings);
}

/** Exports the spans still buffered, at shutdown before the process exits; nothing when tracing is off. */
export async function stopTracing(logger: Logger): Promise<void> {
  await tracing?.stopTracing(logger);
}
