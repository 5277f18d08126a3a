import type { ChangeEvent } from '../changes/change-event';
import type { PubSub } from 'type-graphql';
import { createLoaders, type GraphQLContext } from '../graphql-kit/context';
import { ChangeStream, type END_OF_STREAM } from './change-stream';

/** What the WebSocket server lends a subscription's resolvers: its bound and how to drop its connection. */
export interface SubscriptionControls {
  /** Most events one subscription may have waiting (WS_MAX_QUEUED_EVENTS). */
  maxQueuedEvents: number;
  /** Closes the subscriber's connection because it reads too slowly. */
  dropSlowConsumer(): void;
}

// Beside the context rather than in it: GraphQLContext is the same for queries, which have none.
const controlsByContext = new WeakMap<GraphQLContext, SubscriptionControls>();

export function lendSubscriptionControls(context: GraphQLContext, controls: SubscriptionControls): void {
  controlsByContext.set(context, controls);
}

/**
 * The source stream of a subscription on the change feed. Each event is executed with fresh
 * loaders: a subscription lives for hours, and one set of DataLoaders would keep every flight and
 * list it ever loaded, and serve them stale.
 */
export function changeStreamFor<T>(context: GraphQLContext, select: (event: ChangeEvent) => T | undefined | typeof END_OF_STREAM): ChangeStream<T> {
  const controls = controlsByContext.get(context);
  if (!controls) throw new Error('a subscription ran outside the WebSocket server (no subscription controls)');
  return new ChangeStream(context.services.changes, {
    select,
    maxQueued: controls.maxQueuedEvents,
    onOverflow: () => controls.dropSlowConsumer(),
    beforeEach: () => {
      context.loaders = createLoaders(context.services);
    },
  });
}

/**
 * type-graphql refuses to build a schema with subscriptions without a PubSub, even when every
 * subscription brings its own `subscribe` (ours read the change feed). This one is never used.
 */
export const feedOnlyPubSub: PubSub = {
  publish() {
    throw new Error('the schema has no PubSub topics: publish through the change feed');
  },
  subscribe() {
    throw new Error('the schema has no PubSub topics: subscriptions read the change feed');
  },
};
