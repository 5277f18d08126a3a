/** The subset of a pino logger the engine writes to. */
export interface EmbeddedLogger {
  debug(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

export const silentLogger: EmbeddedLogger = {
  debug: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
