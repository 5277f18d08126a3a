import { setTimeout as sleep } from 'node:timers/promises';
import type { Document } from 'bson';
import { isPlainObject } from './bson-values';
import type { ClientInfo, CommandContext, CommandHandler, EngineState } from './command-context';
import { aggregateCommands } from './commands/aggregate-command';
import { assertSupportedCommandOptions, unsatisfiedWriteConcern } from './commands/arguments';
import { collectionCommands } from './commands/collection-commands';
import { findAndModifyCommands } from './commands/find-and-modify';
import { handshakeCommands } from './commands/handshake';
import { indexCommands } from './commands/index-commands';
import { readCommands } from './commands/read-commands';
import { sessionCommands } from './commands/session-commands';
import { testCommands } from './commands/test-commands';
import { writeCommands } from './commands/write-commands';
import { CommandError, ErrorCode, commandNotFound, errorReply } from './errors';
import { addWriteConcernError, CloseConnectionSignal, failPointError, type FailCommandAction } from './fail-points';
import { sessionKeyOf } from './session-keys';
import type { Transaction } from './transactions';
import { deadlineOf, retryWhenBlocked } from './write-waits';

const handlers = new Map<string, CommandHandler>(
  Object.entries({
    ...handshakeCommands,
    ...readCommands,
    ...writeCommands,
    ...findAndModifyCommands,
    ...aggregateCommands,
    ...collectionCommands,
    ...indexCommands,
    ...sessionCommands,
    ...testCommands,
  }),
);

/** Writes a driver retries with the same `txnNumber` after a lost reply (retryable writes). */
const RETRYABLE_WRITES = new Set(['insert', 'update', 'delete', 'findAndModify', 'findandmodify']);

/** Commands MongoDB runs inside a multi-document transaction; any other answers OperationNotSupportedInTransaction (263). */
const TRANSACTION_COMMANDS = new Set([
  'find', 'getMore', 'killCursors', 'aggregate', 'distinct', 'insert', 'update', 'delete', 'findAndModify', 'findandmodify',
  'create', 'createIndexes', 'hello', 'isMaster', 'ismaster', 'buildInfo', 'buildinfo', 'connectionStatus', 'ping', 'listCommands',
]);

function transactionOf(engine: EngineState, name: string, body: Document): Transaction | undefined {
  if (body.autocommit !== false || name === 'commitTransaction' || name === 'abortTransaction') return undefined;
  const sessionKey = sessionKeyOf(body.lsid);
  if (sessionKey === undefined || body.txnNumber === undefined) {
    throw new CommandError(ErrorCode.InvalidOptions, "'autocommit' is only valid with a logical session id and a txnNumber");
  }
  if (!TRANSACTION_COMMANDS.has(name)) throw new CommandError(ErrorCode.OperationNotSupportedInTransaction, `Cannot run '${name}' in a multi-document transaction.`);
  const txnNumber = Number(body.txnNumber);
  const latestRetryableWrite = engine.retryableWrites.latestTxnNumber(sessionKey);
  if (body.startTransaction === true && latestRetryableWrite !== undefined && latestRetryableWrite > txnNumber) {
    throw new CommandError(
      ErrorCode.TransactionTooOld,
      `Cannot start transaction ${txnNumber} on session because a newer retryable write with txnNumber ${latestRetryableWrite} has already started on this session.`,
    );
  }
  return engine.transactions.resolve(sessionKey, txnNumber, body.startTransaction === true);
}

function namespaceOf(database: string, body: Document, name: string): string {
  return typeof body[name] === 'string' ? `${database}.${body[name]}` : `${database}.$cmd`;
}

/** Applies a `failCommand` fail point before the command runs: wait, close the connection, or fail. */
async function applyFailPoint(action: FailCommandAction, name: string, body: Document): Promise<void> {
  if (action.blockTimeMS !== undefined && action.blockTimeMS > 0) await sleep(action.blockTimeMS, undefined, { ref: false });
  if (action.closeConnection) throw new CloseConnectionSignal();
  if (action.errorCode !== undefined) throw failPointError(name, body, action, action.errorCode);
}

/**
 * Runs one command and always returns a reply document: any exception, including engine bugs,
 * becomes an `ok: 0` reply so one bad request never takes the server down. A failed statement
 * inside a transaction aborts that transaction, as in MongoDB. The one exception is a fail point
 * closing the connection (CloseConnectionSignal), which the server turns into a closed socket.
 */
export async function runCommand(engine: EngineState, database: string, body: Document, client: ClientInfo): Promise<Document> {
  let transaction: Transaction | undefined;
  let name = '';
  try {
    if (!isPlainObject(body) || Object.keys(body).length === 0) throw new CommandError(ErrorCode.FailedToParse, 'Empty command document');
    name = Object.keys(body)[0];
    const handler = handlers.get(name);
    if (!handler) throw commandNotFound(name);
    if (engine.topology.kind === 'standalone' && body.txnNumber !== undefined) {
      // As a standalone mongod: no transactions, and no retryable writes either.
      throw new CommandError(ErrorCode.IllegalOperation, 'Transaction numbers are only allowed on a replica set member or mongos');
    }
    // As on MongoDB, a fail point fires before the command reaches its session: an error it
    // injects neither starts nor aborts a transaction, so a driver may retry the statement.
    const failPoint = engine.failPoints?.actionFor(name, client, namespaceOf(database, body, name));
    if (failPoint) await applyFailPoint(failPoint, name, body);
    transaction = transactionOf(engine, name, body);
    assertSupportedCommandOptions(body, transaction !== undefined);
    const activeTransaction = transaction;
    const context: CommandContext = {
      // Inside a transaction every collection is seen through the transaction's snapshot view.
      engine: activeTransaction ? { ...engine, storage: activeTransaction.storage } : engine,
      body,
      database,
      connectionId: client.id,
      client,
      transaction,
      beginWrite: async () => activeTransaction,
    };
    // Handlers that meet an open transaction's uncommitted collection wait for it before changing
    // anything (write commands wait per statement themselves), so running them again is safe.
    const sessionKey = sessionKeyOf(body.lsid);
    const retryable = !transaction && body.txnNumber !== undefined && sessionKey !== undefined && RETRYABLE_WRITES.has(name);
    let loseReply = false;
    const execute = async () => {
      // Evaluated only when the write really runs (not when a retry is answered from the record).
      const fault = retryable ? engine.failPoints?.transactionalWriteFault() : undefined;
      if (fault?.failBeforeCommitExceptionCode !== undefined) {
        if (fault.closeConnection) throw new CloseConnectionSignal();
        throw new CommandError(fault.failBeforeCommitExceptionCode, "Failing write via 'onPrimaryTransactionalWrite' failpoint");
      }
      loseReply = fault?.closeConnection === true;
      return retryWhenBlocked(() => handler(context), deadlineOf(body));
    };
    // A recorded outcome is copied: what is added below (write concern errors) belongs to this answer only.
    const reply = retryable ? { ...(await engine.retryableWrites.run(sessionKey, Number(body.txnNumber), execute)) } : await execute();
    if (loseReply) throw new CloseConnectionSignal();
    const writeConcernError = unsatisfiedWriteConcern(body);
    if (writeConcernError && reply.ok !== 0) reply.writeConcernError = writeConcernError;
    if (failPoint?.writeConcernError && reply.ok !== 0) addWriteConcernError(name, body, failPoint, reply);
    if (transaction && Array.isArray(reply.writeErrors) && reply.writeErrors.length > 0) engine.transactions.abortAfterError(transaction);
    return reply;
  } catch (error) {
    if (transaction) engine.transactions.abortAfterError(transaction);
    if (error instanceof CloseConnectionSignal) throw error;
    if (!(error instanceof CommandError)) engine.logger.error({ err: error, command: name, database }, 'embedded mongo command failed');
    else engine.logger.debug({ command: name, database, code: error.code, errmsg: error.message }, 'embedded mongo command error');
    return errorReply(error);
  }
}
