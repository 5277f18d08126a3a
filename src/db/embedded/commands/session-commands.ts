import type { Document } from 'bson';
import type { CommandContext, CommandHandler } from '../command-context';
import { CommandError, ErrorCode } from '../errors';
import { sessionKeyOf } from '../session-keys';

function transactionCoordinates({ body }: CommandContext): { sessionKey: string; txnNumber: number } {
  const sessionKey = sessionKeyOf(body.lsid);
  if (sessionKey === undefined || body.txnNumber === undefined) {
    throw new CommandError(ErrorCode.InvalidOptions, 'Transaction commands require a logical session id and a txnNumber');
  }
  return { sessionKey, txnNumber: Number(body.txnNumber) };
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
    for (const lsid of Array.isArray(body.endSessions) ? (body.endSessions as Document[]) : []) {
      const sessionKey = sessionKeyOf(lsid);
      if (sessionKey !== undefined) engine.transactions.endSession(sessionKey);
    }
    return { ok: 1 };
  },
  killSessions: ({ engine, body }) => {
    for (const lsid of Array.isArray(body.killSessions) ? (body.killSessions as Document[]) : []) {
      const sessionKey = sessionKeyOf(lsid);
      if (sessionKey !== undefined) engine.transactions.endSession(sessionKey);
    }
    return { ok: 1 };
  },
  killAllSessions: ({ engine }) => {
    engine.transactions.endAllSessions();
    return { ok: 1 };
  },
  refreshSessions: () => ({ ok: 1 }),
  startSession: () => {
    throw new CommandError(ErrorCode.CommandNotSupported, 'startSession is not needed: drivers create session ids themselves');
  },
};
