import { ConfigError } from './config-error';
import { DAY_MS } from './values';
import type { Resolved } from './variable';
import type { CONFIG } from './variables';

/** The configuration as loadConfig returns it (load-config.ts exports the same type; named here so the rules do not import their caller). */
type Config = Resolved<typeof CONFIG>;

/**
 * Rules between variables, checked once each variable is valid on its own. Each throws a
 * ConfigError naming the variable to change and the one it is measured against.
 */
export const CONFIG_RULES: readonly ((config: Config) => void)[] = [
  function oneKeySource({ auth }) {
    const keySources = (
      [
        ['JWT_SECRET', auth.jwtSecret],
        ['JWT_PUBLIC_KEY', auth.jwtPublicKey],
        ['JWKS_URL', auth.jwksUrl],
      ] as const
    ).filter(([, value]) => value !== undefined);
    if (keySources.length > 1) {
      throw new ConfigError(keySources[1][0], `cannot be set together with ${keySources[0][0]}: choose one key source`);
    }
  },
  // Node refuses a headers time-out longer than the request time-out; say so at start-up instead.
  function headersWithinRequest({ http }) {
    if (http.headersTimeoutMs > http.requestTimeoutMs) {
      throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS', `must not exceed HTTP_REQUEST_TIMEOUT_MS (${http.requestTimeoutMs}), got "${http.headersTimeoutMs}"`);
    }
  },
  // SHUTDOWN_TIMEOUT_MS bounds the whole drain, the grace included.
  function graceWithinShutdown({ shutdownGraceMs, shutdownTimeoutMs }) {
    if (shutdownGraceMs > shutdownTimeoutMs) {
      throw new ConfigError('SHUTDOWN_GRACE_MS', `must not exceed SHUTDOWN_TIMEOUT_MS (${shutdownTimeoutMs}), got "${shutdownGraceMs}"`);
    }
  },
  // Production keeps at least a day of retries and of failures before disabling an endpoint.
  function webhooksPatientInProduction({ nodeEnv, webhooks }) {
    if (nodeEnv !== 'production') return;
    if (webhooks.retryScheduleMs.reduce((sum, delay) => sum + delay, 0) < DAY_MS) {
      throw new ConfigError('WEBHOOK_RETRY_SCHEDULE_MS', 'must add up to at least 24 hours (86400000) in production');
    }
    if (webhooks.disableAfterMs < DAY_MS) throw new ConfigError('WEBHOOK_DISABLE_AFTER_MS', 'must be at least 24 hours (86400000) in production');
  },
  function endpointShareWithinConcurrency({ webhooks }) {
    if (webhooks.concurrencyPerEndpoint > webhooks.concurrency) {
      throw new ConfigError('WEBHOOK_CONCURRENCY_PER_ENDPOINT', `must not exceed WEBHOOK_CONCURRENCY (${webhooks.concurrency}), got "${webhooks.concurrencyPerEndpoint}"`);
    }
  },
];
