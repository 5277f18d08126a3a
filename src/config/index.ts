/**
 * The service's configuration: every environment variable declared once (variables.ts), read and
 * checked at start-up by loadConfig. The only reader of `process.env` (scripts/start.cjs loads
 * `.env` into it first).
 */
export { ConfigError } from './config-error';
export {
  CONFIG_VARIABLES,
  loadConfig,
  startupLogSettings,
  tracingSettings,
  type AuthConfig,
  type ChangesConfig,
  type Config,
  type DatabaseTimeoutsConfig,
  type HttpTimeoutsConfig,
  type LimitsConfig,
  type LingerConfig,
  type LogFormat,
  type LogLevel,
  type SubscriptionsConfig,
  type WebhooksConfig,
} from './load-config';
export { DEFAULT_SERVICE_NAME, type TracingConfig, type TracingProtocol } from './tracing';
export type { NodeEnv } from './variable';
export { isHostHeader } from './values';
