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
 * `{ name, message, code?, stack }`; the rest of the object is plain data already.
 */
export function serialisable(object: object): object {
  const { err, ...rest } = object as { err?: unknown };
  return err instanceof Error ? { ...rest, err: plainError(err) } : object;
}

/** An Error as plain data (see serialisable). */
export function plainError(error: Error): { name: string; message: string; code?: string | number; stack?: string } {
  const { code } = error as { code?: unknown };
  return { name: error.name, message: error.message, ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}), stack: error.stack };
}
