import { createHash } from 'node:crypto';
import { createSourceEventStream, execute, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { ChangeEvent } from '../changes/change-event';
import type { GraphQLContext } from '../graphql-kit/context';
import { sourceEventOf } from './change-stream';

/** Results kept for subscribers still to be served the same event (one per event and distinct subscription). */
const MAX_SHARED_RESULTS = 2_000;

type SubscriptionResult = AsyncIterableIterator<ExecutionResult> | ExecutionResult;

/**
 * graphql's `subscribe`, except that a change event is executed once for all the subscriptions
 * that would answer it alike: the same document, operation and variables under the same token
 * subject and scopes (one client may open WS_MAX_CONNECTIONS_PER_SUBJECT ×
 * WS_MAX_SUBSCRIPTIONS_PER_CONNECTION of them). The result object is shared, so its shaping
 * (result-format.ts) is done once too; each subscriber only frames and sends it.
 */
export function createSharedSubscribe(): (args: ExecutionArgs) => Promise<SubscriptionResult> {
  const results = new Map<string, ExecutionResult | Promise<ExecutionResult>>();
  const documentKeys = new WeakMap<DocumentNode, number>();
  let documents = 0;

  return async (args) => {
    const stream = await createSourceEventStream(args);
    if (!(Symbol.asyncIterator in stream)) return stream as ExecutionResult;
    const principal = (args.contextValue as GraphQLContext).principal;
    let documentKey = documentKeys.get(args.document);
    if (documentKey === undefined) documentKeys.set(args.document, (documentKey = ++documents));
    // Documents are parsed per subscribe message; their text, not their object, makes two alike.
    // Hashed: the cache's keys stay small whatever the size of the document.
    const alike = principal
      ? createHash('sha256')
          .update(JSON.stringify([principal.subject, [...principal.scopes].sort(), args.document.loc?.source.body ?? `#${documentKey}`, args.operationName ?? null, args.variableValues ?? null]))
          .digest('base64')
      : undefined;
    const run = (payload: unknown) => execute({ ...args, rootValue: payload });
    return mapStream(stream as AsyncIterableIterator<unknown>, (payload) => {
      const event: ChangeEvent | undefined = sourceEventOf(payload);
      if (!event || alike === undefined) return run(payload);
      const key = `${event.id}\n${alike}`;
      let result = results.get(key);
      if (!result) {
        result = run(payload);
        results.set(key, result);
        if (results.size > MAX_SHARED_RESULTS) results.delete(results.keys().next().value!);
      }
      return result;
    });
  };
}

/**
 * Maps a stream's values, passing return() straight to the source: a generator would queue it
 * behind a pending next(), and a subscription waiting for an event would never stop listening.
 */
function mapStream<T, U>(source: AsyncIterableIterator<T>, map: (value: T) => U | Promise<U>): AsyncIterableIterator<U> {
  return {
    async next() {
      const item = await source.next();
      if (item.done) return { value: undefined, done: true };
      return { value: await map(item.value), done: false };
    },
    async return() {
      await source.return?.();
      return { value: undefined, done: true };
    },
    async throw(error?: unknown) {
      await source.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
