import { setTimeout as sleep } from 'node:timers/promises';
import type { Document } from 'bson';
import { isNumeric } from './bson-values';
import { CommandError, ErrorCode } from './errors';

/** Something a write outside any transaction must wait for: an open transaction, until it ends. */
export interface WriteBlocker {
  /** Settles when the transaction commits or aborts. */
  readonly ended: Promise<void>;
}

/**
 * Thrown by a write outside any transaction, before it changes anything, when it meets a document,
 * unique key or new collection an open transaction has written: MongoDB makes such a write wait
 * until the transaction ends and then applies it, and so does the engine (`retryWhenBlocked`).
 */
export class BlockedByTransaction extends Error {
  constructor(readonly blocker: WriteBlocker) {
    super('write blocked by an open transaction');
    this.name = 'BlockedByTransaction';
  }
}

/** When a command must give up waiting: now + its `maxTimeMS`, or never (the transaction's lifetime limit ends the wait). */
export function deadlineOf(body: Document): number | undefined {
  const maxTimeMS = body.maxTimeMS;
  return isNumeric(maxTimeMS) && Number(maxTimeMS) > 0 ? Date.now() + Number(maxTimeMS) : undefined;
}

/**
 * Runs `attempt`; while it reports a blocking transaction, waits for that transaction to end and
 * runs it again on the data as it then is. Past the deadline: MaxTimeMSExpired (50), as MongoDB.
 */
export async function retryWhenBlocked<T>(attempt: () => T | Promise<T>, deadline: number | undefined): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof BlockedByTransaction)) throw error;
      await waitForEnd(error.blocker, deadline);
    }
  }
}

async function waitForEnd(blocker: WriteBlocker, deadline: number | undefined): Promise<void> {
  if (deadline === undefined) return blocker.ended;
  const remaining = deadline - Date.now();
  if (remaining <= 0) throw new CommandError(ErrorCode.MaxTimeMSExpired, 'operation exceeded time limit');
  const timeout = new AbortController();
  try {
    const outcome = await Promise.race([blocker.ended.then(() => 'ended' as const), sleep(remaining, 'expired' as const, { signal: timeout.signal, ref: false })]);
    if (outcome === 'expired') throw new CommandError(ErrorCode.MaxTimeMSExpired, 'operation exceeded time limit');
  } finally {
    timeout.abort();
  }
}
