import type { ChangeEvent, ChangeFeed } from '../../src/changes/change-event';
import { ChangeStream, END_OF_STREAM } from '../../src/subscriptions/change-stream';

/*
 * The source stream of every subscription, against a feed that behaves as the contract says (calls
 * its listeners synchronously, in order). Its public interface is the async iterator protocol.
 */

class ListFeed implements ChangeFeed {
  readonly listeners = new Set<(event: ChangeEvent) => void>();
  private seq = 0;

  listen(listener: (event: ChangeEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(flightId: number): void {
    const event: ChangeEvent = { id: `evt_${++this.seq}`, seq: this.seq, type: 'flight.updated', at: new Date(), flightId, flight: null, subject: 't' };
    for (const listener of this.listeners) listener(event);
  }
}

describe('ChangeStream', () => {
  const stream = (feed: ListFeed, overrides: Partial<ConstructorParameters<typeof ChangeStream<number>>[1]> = {}) =>
    new ChangeStream<number>(feed, { select: (event) => (event.flightId > 0 ? event.flightId : undefined), maxQueued: 3, onOverflow: () => undefined, ...overrides });

  it('hands on the selected events in order, queued or awaited', async () => {
    const feed = new ListFeed();
    const changes = stream(feed);
    feed.emit(1);
    feed.emit(0);
    feed.emit(2);
    expect(await changes.next()).toEqual({ value: 1, done: false });
    expect(await changes.next()).toEqual({ value: 2, done: false });
    const awaited = changes.next();
    feed.emit(3);
    expect(await awaited).toEqual({ value: 3, done: false });
  });

  it('stops listening when returned, and ends a pending next', async () => {
    const feed = new ListFeed();
    const changes = stream(feed);
    const pending = changes.next();
    await changes.return();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(feed.listeners.size).toBe(0);
  });

  it('ends, stops listening and reports once when the subscriber falls more than maxQueued behind', async () => {
    const feed = new ListFeed();
    const overflows: number[] = [];
    const changes = stream(feed, { onOverflow: () => overflows.push(1) });
    for (const flightId of [1, 2, 3, 4, 5]) feed.emit(flightId);
    expect(overflows).toEqual([1]);
    expect(feed.listeners.size).toBe(0);
    expect(await changes.next()).toEqual({ value: undefined, done: true });
  });

  it('delivers what is queued, then ends, after END_OF_STREAM', async () => {
    const feed = new ListFeed();
    const changes = stream(feed, { select: (event) => (event.flightId === 9 ? END_OF_STREAM : event.flightId) });
    feed.emit(1);
    feed.emit(9);
    feed.emit(2);
    expect(await changes.next()).toEqual({ value: 1, done: false });
    expect(await changes.next()).toEqual({ value: undefined, done: true });
    expect(feed.listeners.size).toBe(0);
  });

  it('calls beforeEach as each value is handed on (a fresh set of loaders per event)', async () => {
    const feed = new ListFeed();
    const calls: string[] = [];
    const changes = stream(feed, { beforeEach: () => calls.push('before') });
    feed.emit(1);
    expect(calls).toEqual([]);
    await changes.next();
    expect(calls).toEqual(['before']);
  });
});
