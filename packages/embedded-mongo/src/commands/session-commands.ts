import type { Document } from 'bson';
import type { CommandContext, CommandHandler, EngineState } from '../command-context';
import { CommandError, ErrorCode } from '../errors';
import { sessionKeyOf } from '../session-keys';

function transactionCoordinates({ body }: CommandContext): { sessionKey: string; txnNumber: number } {
  const sessionKey = sessionKeyOf(body.lsid);
  if (sessionKey === undefined || body.txnNumber === undefined) {
    throw new CommandError(ErrorCode.InvalidOptions, 'Transaction commands require a logical session id and a txnNumber');
  }
  return { sessionKey, txnNumber: Number(body.txnNumber) };
}

/** Ends the listed sessions: their open transactions abort and their retryable-write records go. */
function endSessions(engine: EngineState, list: unknown): void {
  for (const lsid of Array.isArray(list) ? (list as Document[]) : []) {
    const sessionKey = sessionKeyOf(lsid);
    if (sessionKey === undefined) continue;
    engine.transactions.endSession(sessionKey);
    engine.retryableWrites.forget(sessionKey);
  }
}

export const sessionCommands: Record<string, CommandHandler> = {
  commitTransaction: (context) => {
    const { sessionKey, txnNumber } = transactionCoordinates(context);
    context.engine.transactions.commit(sessionKey, txnNumber);
    return { ok: 1 };
  },
  abortTransaction: (context) => {
    const { sessionKey, txnNumber } = transactionCoordinates(context);
    context.engine.transactions.abort(sessionKey, txnNumber);
    return { ok: 1 };
  },
  endSessions: ({ engine, body }) => {
    endSessions(engine, body.endSessions);
    return { ok: 1 };
  },
  killSessions: ({ engine, body }) => {
    endSessions(engine, body.killSessions);
    return { ok: 1 };
  },
  killAllSessions: ({ engine }) => {
    engine.transactions.endAllSessions();
    engine.retryableWrites.forgetAll();
    return { ok: 1 };
  },
  refreshSessions: () => ({ ok: 1 }),
  startSession: () => {
    throw new CommandError(ErrorCode.CommandNotSupported, 'startSession is not needed: drivers create session ids themselves');
  },
};
