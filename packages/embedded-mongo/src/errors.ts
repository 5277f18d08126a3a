import type { Document } from 'bson';

/** MongoDB server error codes the engine answers with, by their official code names. */
export const ErrorCode = {
  InternalError: 1,
  BadValue: 2,
  HostUnreachable: 6,
  HostNotFound: 7,
  UnknownError: 8,
  FailedToParse: 9,
  Unauthorized: 13,
  TypeMismatch: 14,
  IllegalOperation: 20,
  InvalidLength: 16,
  LockTimeout: 24,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  PathNotViable: 28,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  NamespaceExists: 48,
  MaxTimeMSExpired: 50,
  CommandNotFound: 59,
  WriteConcernFailed: 64,
  ImmutableField: 66,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  UnknownReplWriteConcern: 79,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  NetworkTimeout: 89,
  ShutdownInProgress: 91,
  UnsatisfiableWriteConcern: 100,
  WriteConflict: 112,
  ConflictingOperationInProgress: 117,
  PrimarySteppedDown: 189,
  TransactionTooOld: 225,
  ExceededTimeLimit: 262,
  OperationNotSupportedInTransaction: 263,
  CommandNotSupported: 115,
  NoSuchTransaction: 251,
  TransactionCommitted: 256,
  SocketException: 9001,
  NotWritablePrimary: 10107,
  BSONObjectTooLarge: 10334,
  DuplicateKey: 11000,
  InterruptedAtShutdown: 11600,
  Interrupted: 11601,
  InterruptedDueToReplStateChange: 11602,
  NotPrimaryNoSecondaryOk: 13435,
  NotPrimaryOrSecondary: 13436,
  UnrecognizedPipelineStage: 40324,
  IDLUnknownField: 40415,
} as const;

const codeNames = new Map<number, string>(Object.entries(ErrorCode).map(([name, code]) => [code, name]));
// MongoDB names errors raised from an assertion site by their location number.
codeNames.set(ErrorCode.UnrecognizedPipelineStage, 'Location40324');

export function codeNameOf(code: number): string {
  return codeNames.get(code) ?? `Location${code}`;
}

/** An error that becomes a MongoDB `{ok: 0, errmsg, code, codeName}` reply (or a write error entry). */
export class CommandError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly errorLabels: string[];
  /** Extra reply fields MongoDB adds for this kind of error (e.g. keyPattern/keyValue). */
  readonly details: Document;

  constructor(code: number, message: string, options: { errorLabels?: string[]; details?: Document } = {}) {
    super(message);
    this.name = 'CommandError';
    this.code = code;
    this.codeName = codeNameOf(code);
    this.errorLabels = options.errorLabels ?? [];
    this.details = options.details ?? {};
  }
}

export function commandNotFound(name: string): CommandError {
  return new CommandError(
    ErrorCode.CommandNotFound,
    `no such command: '${name}'. The embedded development engine does not support it; set MONGODB_URI to use a real MongoDB.`,
  );
}

export function unsupportedFeature(what: string): CommandError {
  return new CommandError(
    ErrorCode.CommandNotSupported,
    `${what} is not supported by the embedded development engine; set MONGODB_URI to use a real MongoDB.`,
  );
}

/**
 * Turns anything a handler threw into MongoDB's error reply shape. Unknown exceptions (engine
 * bugs, library errors) become code 1 InternalError, or BadValue when they come from mingo's
 * parsing of a query, update or pipeline the client sent.
 */
/** mingo's "unknown operator" errors (a plain Error) as MongoDB words them: BadValue (2). */
export function unknownOperatorError(message: string): CommandError | undefined {
  const fieldLevel = /^unknown (?:query )?operator:? (\$\S+)/.exec(message);
  if (fieldLevel) return new CommandError(ErrorCode.BadValue, `unknown operator: ${fieldLevel[1]}`);
  const topLevel = /^unknown top level operator:? (\$[^\s.]+)/.exec(message);
  if (topLevel) {
    return new CommandError(ErrorCode.BadValue, `unknown top level operator: ${topLevel[1]}. If you have a field name that starts with a '$' symbol, consider using $getField or $setField.`);
  }
  return undefined;
}

export function toCommandError(error: unknown): CommandError {
  if (error instanceof CommandError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const unknownOperator = unknownOperatorError(message);
  if (unknownOperator) return unknownOperator;
  if (error instanceof Error && (error.name === 'MingoError' || error.constructor.name === 'MingoError')) return new CommandError(ErrorCode.BadValue, message);
  if (error instanceof Error && /^BSON/.test(error.name)) return new CommandError(ErrorCode.BadValue, message);
  return new CommandError(ErrorCode.InternalError, message);
}

export function errorReply(error: unknown): Document {
  const commandError = toCommandError(error);
  const reply: Document = {
    ok: 0,
    errmsg: commandError.message,
    code: commandError.code,
    codeName: commandError.codeName,
    ...commandError.details,
  };
  if (commandError.errorLabels.length > 0) reply.errorLabels = commandError.errorLabels;
  return reply;
}

/** The entry MongoDB puts in `writeErrors` for one failed statement of a batch write. */
export function writeErrorEntry(index: number, error: unknown): Document {
  const commandError = toCommandError(error);
  return { index, code: commandError.code, errmsg: commandError.message, ...commandError.details };
}

/**
 * Errors that end the whole command (not one statement's write error): transaction conflicts,
 * and interruptions such as an expired `maxTimeMS` (MongoDB rethrows those out of the batch).
 */
export function failsWholeCommand(error: unknown): boolean {
  return error instanceof CommandError && (error.errorLabels.includes('TransientTransactionError') || error.code === ErrorCode.MaxTimeMSExpired);
}
