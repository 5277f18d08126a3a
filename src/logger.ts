import pino, { type Logger } from 'pino';
import type { Config } from './config';

export type { Logger };

/** Structured JSON logs on stdout; tokens and cookies never reach them. */
export function createLogger(config: Pick<Config, 'logLevel' | 'nodeEnv'>): Logger {
  return pino({
    level: config.logLevel,
    base: { service: 'broker-flight-gateway' },
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
