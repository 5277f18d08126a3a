import type { Document } from 'bson';
import { isNumeric, isPlainObject } from './bson-values';
import type { ClientInfo } from './client-info';
import { codeNameOf, CommandError, ErrorCode, unsupportedFeature } from './errors';

/**
 * MongoDB's `failCommand` fail point (`configureFailPoint`, a test command): makes chosen commands
 * fail with an error code, close the connection, wait, or report a write concern error, a given
 * number of times or until turned off. Drivers' specification tests and the project's own fault
 * tests use it to inject server faults through the real wire protocol. `onPrimaryTransactionalWrite`
 * loses the reply of a retryable write after (or instead of) applying it.
 */

const FAILPOINT_MESSAGE = "Failing command via 'failCommand' failpoint";

/** Codes MongoDB labels RetryableWriteError on a retryable write (the drivers' retryable-writes list). */
const RETRYABLE_WRITE_CODES = new Set([6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);
/** Codes that make a statement of a transaction a TransientTransactionError. */
const TRANSIENT_TRANSACTION_CODES = new Set([...RETRYABLE_WRITE_CODES, ErrorCode.WriteConflict, 24]);
const RETRYABLE_WRITE_COMMANDS = new Set(['insert', 'update', 'delete', 'findAndModify', 'findandmodify']);

/** Names that reach one command (`failCommands: ['isMaster']` also fails `hello`, as in MongoDB). */
const ALIASES: string[][] = [
  ['hello', 'isMaster', 'ismaster'],
  ['findAndModify', 'findandmodify'],
  ['buildInfo', 'buildinfo'],
  ['dropIndexes', 'deleteIndexes'],
];

function namesOf(command: string): string[] {
  return ALIASES.find((group) => group.includes(command)) ?? [command];
}

type Mode = { kind: 'off' } | { kind: 'alwaysOn' } | { kind: 'times'; remaining: number } | { kind: 'skip'; remaining: number } | { kind: 'probability'; probability: number };

/** What an activated fail point does to one command. */
export interface FailCommandAction {
  blockTimeMS: number | undefined;
  closeConnection: boolean;
  errorCode: number | undefined;
  /** Labels to answer with instead of the ones the server would add; undefined: the server's own. */
  errorLabels: string[] | undefined;
  writeConcernError: Document | undefined;
}

/** Thrown to end a connection without answering (`closeConnection: true`). */
export class CloseConnectionSignal extends Error {
  constructor() {
    super(`${FAILPOINT_MESSAGE}: closing connection`);
    this.name = 'CloseConnectionSignal';
  }
}

function parseMode(mode: unknown): Mode {
  if (mode === 'off') return { kind: 'off' };
  if (mode === 'alwaysOn') return { kind: 'alwaysOn' };
  if (isPlainObject(mode)) {
    if (isNumeric(mode.times)) return Number(mode.times) > 0 ? { kind: 'times', remaining: Number(mode.times) } : { kind: 'off' };
    if (isNumeric(mode.skip)) return { kind: 'skip', remaining: Math.max(0, Number(mode.skip)) };
    if (isNumeric(mode.activationProbability)) {
      const probability = Number(mode.activationProbability);
      if (probability < 0 || probability > 1) throw new CommandError(ErrorCode.BadValue, 'activationProbability must be between 0.0 and 1.0');
      return { kind: 'probability', probability };
    }
  }
  throw new CommandError(ErrorCode.BadValue, "'mode' must be one of 'off', 'alwaysOn', {times: <n>}, {skip: <n>} or {activationProbability: <p>}");
}

function parseData(data: unknown): Document {
  if (data === undefined) return {};
  if (!isPlainObject(data)) throw new CommandError(ErrorCode.TypeMismatch, "'data' must be an object");
  const { failCommands, errorCode, blockConnection, blockTimeMS, errorLabels, writeConcernError, appName } = data;
  if (failCommands !== undefined && (!Array.isArray(failCommands) || !failCommands.every((name) => typeof name === 'string'))) {
    throw new CommandError(ErrorCode.TypeMismatch, "'failCommands' must be an array of command names");
  }
  if (errorCode !== undefined && !isNumeric(errorCode)) throw new CommandError(ErrorCode.TypeMismatch, "'errorCode' must be a number");
  if (blockConnection === true && (!isNumeric(blockTimeMS) || Number(blockTimeMS) < 0)) {
    throw new CommandError(ErrorCode.InvalidOptions, "must specify a non-negative 'blockTimeMS' when 'blockConnection' is true");
  }
  if (errorLabels !== undefined && (!Array.isArray(errorLabels) || !errorLabels.every((label) => typeof label === 'string'))) {
    throw new CommandError(ErrorCode.TypeMismatch, "'errorLabels' must be an array of strings");
  }
  if (writeConcernError !== undefined && (!isPlainObject(writeConcernError) || !isNumeric(writeConcernError.code))) {
    throw new CommandError(ErrorCode.TypeMismatch, "'writeConcernError' must be an object with a numeric 'code'");
  }
  if (appName !== undefined && typeof appName !== 'string') throw new CommandError(ErrorCode.TypeMismatch, "'appName' must be a string");
  return data;
}

/** One fail point's setting and how often it fired since it was set. */
interface FailPointState {
  mode: Mode;
  data: Document;
  timesEntered: number;
}

/** What `onPrimaryTransactionalWrite` does to a retryable write. */
export interface TransactionalWriteFault {
  /** Fail before the write is applied, with this code; undefined: apply the write. */
  failBeforeCommitExceptionCode: number | undefined;
  /** Close the connection afterwards instead of answering (the default): the reply is lost. */
  closeConnection: boolean;
}

/** The fail points the engine implements. */
const FAIL_POINT_NAMES = new Set(['failCommand', 'onPrimaryTransactionalWrite']);

export class FailPoints {
  private readonly points = new Map<string, FailPointState>();

  /** `{configureFailPoint: <name>, mode, data}` on the admin database. */
  configure(body: Document, database: string): Document {
    if (database !== 'admin') throw new CommandError(13, 'configureFailPoint may only be run against the admin database.');
    const name = body.configureFailPoint;
    if (typeof name !== 'string') throw new CommandError(ErrorCode.TypeMismatch, "'configureFailPoint' must name a fail point");
    if (!FAIL_POINT_NAMES.has(name)) throw unsupportedFeature(`The fail point '${name}' (only 'failCommand' and 'onPrimaryTransactionalWrite' exist)`);
    if (body.mode === undefined) throw new CommandError(ErrorCode.BadValue, "Missing required 'mode' field");
    const mode = parseMode(body.mode);
    const data = mode.kind === 'off' ? {} : parseData(body.data);
    const count = this.points.get(name)?.timesEntered ?? 0;
    this.points.set(name, { mode, data, timesEntered: 0 });
    return { count, ok: 1 };
  }

  /** The `failCommand` action for a command about to run, counting it as an activation; undefined when it does not apply. */
  actionFor(command: string, client: ClientInfo, namespace: string): FailCommandAction | undefined {
    const point = this.points.get('failCommand');
    if (!point || point.mode.kind === 'off' || command === 'configureFailPoint') return undefined;
    const { data } = point;
    if (data.appName !== undefined && data.appName !== client.appName) return undefined;
    if (typeof data.namespace === 'string' && data.namespace !== namespace) return undefined;
    const names = namesOf(command);
    const listed = data.failAllCommands === true || (Array.isArray(data.failCommands) && data.failCommands.some((name: string) => names.includes(name)));
    const blockTimeMS = data.blockConnection === true ? Number(data.blockTimeMS) : undefined;
    const closeConnection = data.closeConnection === true;
    const errorCode = data.errorCode === undefined ? undefined : Number(data.errorCode);
    const writeConcernError = data.writeConcernError as Document | undefined;
    if (!listed || (blockTimeMS === undefined && !closeConnection && errorCode === undefined && writeConcernError === undefined)) return undefined;
    if (!activate(point)) return undefined;
    return { blockTimeMS, closeConnection, errorCode, errorLabels: data.errorLabels as string[] | undefined, writeConcernError };
  }

  /**
   * MongoDB's `onPrimaryTransactionalWrite`, for a retryable write about to be applied: by default
   * the write is applied and the connection closed before the answer (a lost reply); with
   * `failBeforeCommitExceptionCode` it fails first and nothing is applied. One activation per
   * write command (MongoDB counts per applied batch of statements).
   */
  transactionalWriteFault(): TransactionalWriteFault | undefined {
    const point = this.points.get('onPrimaryTransactionalWrite');
    if (!point || !activate(point)) return undefined;
    const code = point.data.failBeforeCommitExceptionCode;
    return { failBeforeCommitExceptionCode: isNumeric(code) ? Number(code) : undefined, closeConnection: point.data.closeConnection !== false };
  }
}

function activate(point: FailPointState): boolean {
  const mode = point.mode;
  switch (mode.kind) {
    case 'off':
      return false;
    case 'skip':
      if (mode.remaining > 0) {
        mode.remaining -= 1;
        return false;
      }
      break;
    case 'times':
      mode.remaining -= 1;
      if (mode.remaining <= 0) point.mode = { kind: 'off' };
      break;
    case 'probability':
      if (Math.random() >= mode.probability) return false;
      break;
  }
  point.timesEntered += 1;
  return true;
}

/**
 * The error labels MongoDB adds to an error answered for `body`: RetryableWriteError on a
 * retryable write (or a commit or abort) failing with a retryable code, TransientTransactionError
 * on a transaction statement failing with a transient one.
 */
export function serverErrorLabels(command: string, body: Document, code: number): string[] {
  const inTransaction = body.autocommit === false;
  const commitOrAbort = command === 'commitTransaction' || command === 'abortTransaction';
  if (commitOrAbort) {
    if (RETRYABLE_WRITE_CODES.has(code)) return ['RetryableWriteError'];
    return code === ErrorCode.NoSuchTransaction ? ['TransientTransactionError'] : [];
  }
  if (inTransaction) return TRANSIENT_TRANSACTION_CODES.has(code) || code === ErrorCode.NoSuchTransaction ? ['TransientTransactionError'] : [];
  if (body.txnNumber !== undefined && RETRYABLE_WRITE_COMMANDS.has(command) && RETRYABLE_WRITE_CODES.has(code)) return ['RetryableWriteError'];
  return [];
}

/** The error a fail point answers with. */
export function failPointError(command: string, body: Document, action: FailCommandAction, code: number): CommandError {
  return new CommandError(code, FAILPOINT_MESSAGE, { errorLabels: action.errorLabels ?? serverErrorLabels(command, body, code) });
}

/** Sets the fail point's write concern error (and its labels) on a successful reply. */
export function addWriteConcernError(command: string, body: Document, action: FailCommandAction, reply: Document): void {
  const { errorLabels: ownLabels, ...writeConcernError } = action.writeConcernError ?? {};
  const code = Number(writeConcernError.code);
  reply.writeConcernError = { codeName: codeNameOf(code), ...writeConcernError, code };
  const labels = new Set([...(reply.errorLabels ?? []), ...(Array.isArray(ownLabels) ? ownLabels : [])]);
  const commitOrAbort = command === 'commitTransaction' || command === 'abortTransaction';
  for (const label of action.errorLabels ?? ((commitOrAbort || (body.txnNumber !== undefined && body.autocommit === undefined)) && RETRYABLE_WRITE_CODES.has(code) ? ['RetryableWriteError'] : [])) {
    labels.add(label);
  }
  if (labels.size > 0) reply.errorLabels = [...labels];
}
