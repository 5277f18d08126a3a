import { CONFIG_RULES } from './rules';
import type { TracingConfig } from './tracing';
import { readContext, resolveTree, variablesOf, type Env, type Resolved, type Variable } from './variable';
import { CONFIG, LOG_FORMATS, LOG_LEVELS } from './variables';

/** The whole validated configuration of the service, as declared in src/config/variables.ts. */
export type Config = Resolved<typeof CONFIG>;
export type AuthConfig = Config['auth'];
export type LimitsConfig = Config['limits'];
export type DatabaseTimeoutsConfig = Config['database'];
export type HttpTimeoutsConfig = Config['http'];
export type LingerConfig = HttpTimeoutsConfig['linger'];
export type ChangesConfig = Config['changes'];
export type WebhooksConfig = Config['webhooks'];
export type SubscriptionsConfig = Config['subscriptions'];
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Every declared variable, in declaration order. */
export const CONFIG_VARIABLES = variablesOf(CONFIG);

/** Reads and validates the environment once; throws a ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const config = resolveTree(CONFIG, readContext(env, CONFIG_VARIABLES)) as Config;
  for (const rule of CONFIG_RULES) rule(config);
  return config;
}

/**
 * What a start-up refusal's log line needs, read leniently (the configuration may be what failed):
 * NODE_ENV and LOG_FORMAT when they are valid, else their defaults.
 */
export function startupLogSettings(env: Env = process.env): Pick<Config, 'nodeEnv' | 'logFormat'> {
  const lenient = <T>(declared: Variable<T>): T => {
    try {
      return declared.resolve(readContext(env, CONFIG_VARIABLES));
    } catch {
      return declared.resolve(readContext({}, CONFIG_VARIABLES));
    }
  };
  return { nodeEnv: lenient(CONFIG.nodeEnv), logFormat: lenient(CONFIG.logFormat) };
}

/**
 * Whether, and where, to export traces. Read on its own before anything else loads (the SDK must
 * patch http, express, graphql and mongodb before they are first required: src/telemetry/register.ts),
 * and again by loadConfig, which reports a bad value the way it reports any other.
 */
export function tracingSettings(env: Env = process.env): TracingConfig | undefined {
  return CONFIG.tracing.resolve(readContext(env, CONFIG_VARIABLES));
}
