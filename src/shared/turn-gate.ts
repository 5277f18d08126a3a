import type { AppError } from '../errors';
import { clientGone } from './read-stream';

export interface TurnGateLimits {
  /** Holders of a turn at once. */
  maxInFlight: number;
  /** Waiters for a turn; one more is refused at once (`refusal`). */
  maxWaiting: number;
}

/** What ends a wait early. */
export interface TurnWait {
  /** Aborted when the request ended (its client went away): the waiter leaves the queue (clientGone). */
  ended?: AbortSignal;
  /** Longest wait, in ms, and the error it ends with; without it a waiter waits for its turn or its end. */
  limit?: { ms: number; error(): AppError };
}

interface Waiter {
  admit(): void;
}

/**
 * A counting semaphore with a bounded first-come queue, for work that must not run many at once
 * (large timeline reads, PDF renders): a turn passes to the oldest waiter when a holder releases its
 * own; a waiter leaves the queue when its request ends or its time is up; the queue is bounded, and
 * one more is refused at once with `refusal()` (a 503 with Retry-After). Hand-written: the
 * semaphores on npm (async-mutex, p-limit) have no per-waiter abort and no bounded queue, the two
 * things this one is for.
 */
export class TurnGate {
  private inFlight = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly limits: TurnGateLimits,
    private readonly refusal: (limits: TurnGateLimits) => AppError,
  ) {}

  /** Holders of a turn, and waiters for one (the /metrics gauges). */
  stats(): { inFlight: number; waiting: number } {
    return { inFlight: this.inFlight, waiting: this.waiting.length };
  }

  /** Resolves with the turn's release (call it once the work is done; more calls do nothing) when the work may go. */
  async enter({ ended, limit }: TurnWait = {}): Promise<() => void> {
    if (ended?.aborted) throw clientGone();
    if (this.inFlight < this.limits.maxInFlight && this.waiting.length === 0) return this.take();
    if (this.waiting.length >= this.limits.maxWaiting) throw this.refusal(this.limits);
    if (limit && limit.ms <= 0) throw limit.error();
    return new Promise<() => void>((resolve, reject) => {
      const waiter: Waiter = {
        admit: () => {
          settle();
          resolve(this.take());
        },
      };
      const leave = (error: AppError) => {
        settle();
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(error);
      };
      const onEnded = () => leave(clientGone());
      const timer = limit && setTimeout(() => leave(limit.error()), limit.ms);
      const settle = () => {
        if (timer) clearTimeout(timer);
        ended?.removeEventListener('abort', onEnded);
      };
      ended?.addEventListener('abort', onEnded, { once: true });
      this.waiting.push(waiter);
    });
  }

  private take(): () => void {
    this.inFlight += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      const next = this.waiting.shift();
      next?.admit();
    };
  }
}
