import type { Document } from 'bson';
import { isPlainObject } from './bson-values';
import type { CommandContext, CommandHandler, EngineState } from './command-context';
import { aggregateCommands } from './commands/aggregate-command';
import { assertSupportedCommandOptions, unsatisfiedWriteConcern } from './commands/arguments';
import { collectionCommands } from './commands/collection-commands';
import { findAndModifyCommands } from './commands/find-and-modify';
import { handshakeCommands } from './commands/handshake';
import { indexCommands } from './commands/index-commands';
import { readCommands } from './commands/read-commands';
import { sessionCommands } from './commands/session-commands';
import { writeCommands } from './commands/write-commands';
import { CommandError, ErrorCode, commandNotFound, errorReply } from './errors';
import { sessionKeyOf } from './session-keys';
import type { Transaction } from './transactions';

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
  }),
);

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
  return engine.transactions.resolve(sessionKey, Number(body.txnNumber), body.startTransaction === true);
}

/**
 * Runs one command and always returns a reply document: any exception, including engine bugs,
 * becomes an `ok: 0` reply so one bad request never takes the server down. A failed statement
 * inside a transaction aborts that transaction, as in MongoDB.
 */
export async function runCommand(engine: EngineState, database: string, body: Document, connectionId: number): Promise<Document> {
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
    transaction = transactionOf(engine, name, body);
    assertSupportedCommandOptions(body, transaction !== undefined);
    const activeTransaction = transaction;
    const context: CommandContext = {
      // Inside a transaction every collection is seen through the transaction's snapshot view.
      engine: activeTransaction ? { ...engine, storage: activeTransaction.storage } : engine,
      body,
      database,
      connectionId,
      transaction,
      beginWrite: async () => activeTransaction,
    };
    const reply = await handler(context);
    const writeConcernError = unsatisfiedWriteConcern(body);
    if (writeConcernError && reply.ok !== 0) reply.writeConcernError = writeConcernError;
    if (transaction && Array.isArray(reply.writeErrors) && reply.writeErrors.length > 0) engine.transactions.abortAfterError(transaction);
    return reply;
  } catch (error) {
    if (transaction) engine.transactions.abortAfterError(transaction);
    if (!(error instanceof CommandError)) engine.logger.error({ err: error, command: name, database }, 'embedded mongo command failed');
    else engine.logger.debug({ command: name, database, code: error.code, errmsg: error.message }, 'embedded mongo command error');
    return errorReply(error);
  }
}
