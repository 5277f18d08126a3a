import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config';

export type { Logger };

type LoggerSettings = Pick<Config, 'logLevel' | 'nodeEnv'> & Partial<Pick<Config, 'logFormat'>>;

/**
 * Structured logs on stdout; tokens and cookies never reach them. JSON, one object a line, except
 * for a person at a terminal in development (LOG_FORMAT=auto), who gets readable lines. The
 * readable form is written synchronously from this thread, so a line logged just before
 * process.exit (a start-up refusal) is never lost.
 */
export function createLogger(config: LoggerSettings, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    base: { service: 'broker-flight-gateway' },
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  // Lines sent elsewhere (a test reading them) keep the JSON form.
  if (destination) return pino(options, destination);
  const format = config.logFormat ?? 'auto';
  const readable = format === 'pretty' || (format === 'auto' && config.nodeEnv === 'development' && process.stdout.isTTY === true);
  if (!readable) return pino(options);
  return pino(options, pretty({ colorize: process.stdout.isTTY === true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' }));
}

/**
 * Logs why the service cannot start, as a fatal line in the format the service's own logs would
 * have had (the configuration may be what failed, so only what could be read of it is used), then
 * exits 1. Every start-up refusal goes through here: a bad variable, a missing key, a port in use.
 */
export function refuseStart(message: string, details: Record<string, unknown> = {}, config: Partial<LoggerSettings> = {}): never {
  const logger = createLogger({ logLevel: 'info', nodeEnv: config.nodeEnv ?? 'development', logFormat: config.logFormat });
  logger.fatal(details, message);
  logger.flush();
  process.exit(1);
}
