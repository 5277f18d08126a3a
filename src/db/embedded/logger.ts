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

/**
 * A log object whose `err` can be written out or posted to another thread: an Error's own fields
 * are not enumerable (JSON drops them) and its prototype does not cross threads, so it becomes
 * `{ name, message, code? }`; the rest of the object is plain data already.
 */
export function serialisable(object: object): object {
  const { err, ...rest } = object as { err?: unknown };
  if (!(err instanceof Error)) return object;
  const { code } = err as { code?: unknown };
  return { ...rest, err: { name: err.name, message: err.message, ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}) } };
}
