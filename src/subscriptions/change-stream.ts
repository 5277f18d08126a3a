import type { ChangeEvent, ChangeFeed } from '../changes/change-event';

/** The change event a stream's payload was selected from (payloads are objects made per stream). */
const sourceEvents = new WeakMap<object, ChangeEvent>();

export function sourceEventOf(payload: unknown): ChangeEvent | undefined {
  return typeof payload === 'object' && payload !== null ? sourceEvents.get(payload) : undefined;
}

/** Returned by a selector to end the stream after what is queued (e.g. the flight was deleted). */
export const END_OF_STREAM = Symbol('end of stream');

export interface ChangeStreamOptions<T> {
  /** What the subscriber gets for an event: a payload, nothing (undefined) or END_OF_STREAM. Must not throw. */
  select(event: ChangeEvent): T | undefined | typeof END_OF_STREAM;
  /** Most payloads waiting for the subscriber. */
  maxQueued: number;
  /** Called once if the subscriber falls further behind; the stream has then ended. */
  onOverflow(): void;
  /** Called before each payload is handed on (a fresh set of per-event loaders). */
  beforeEach?(): void;
}

/**
 * A subscription's source stream: the feed's events, filtered, in a queue of at most `maxQueued`.
 * The feed calls every listener synchronously and must never wait for one, so a subscriber that
 * does not keep up cannot slow the others nor make this queue grow: it is cut off instead. It stops
 * listening when it ends, overflows, or is returned (the client completed, or the socket closed).
 */
export class ChangeStream<T> implements AsyncIterableIterator<T> {
  private readonly queue: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private ended = false;
  private readonly unlisten: () => void;

  constructor(
    feed: ChangeFeed,
    private readonly options: ChangeStreamOptions<T>,
  ) {
    this.unlisten = feed.listen((event) => this.offer(event));
  }

  next(): Promise<IteratorResult<T>> {
    if (this.queue.length > 0) return Promise.resolve(this.handOn(this.queue.shift() as T));
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<T>> {
    this.queue.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<T>> {
    this.queue.length = 0;
    this.end();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private offer(event: ChangeEvent): void {
    if (this.ended) return;
    const selected = this.options.select(event);
    if (selected === undefined) return;
    if (selected === END_OF_STREAM) {
      this.end();
      return;
    }
    if (typeof selected === 'object' && selected !== null) sourceEvents.set(selected, event);
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve(this.handOn(selected));
      return;
    }
    if (this.queue.length >= this.options.maxQueued) {
      this.queue.length = 0;
      this.end();
      this.options.onOverflow();
      return;
    }
    this.queue.push(selected);
  }

  private handOn(value: T): IteratorResult<T> {
    this.options.beforeEach?.();
    return { value, done: false };
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.unlisten();
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: undefined, done: true });
    }
  }
}
