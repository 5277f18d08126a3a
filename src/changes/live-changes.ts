import type { ChangesConfig } from '../config';
import type { Models } from '../models';
import type { Logger } from '../logger';
import type { ChangeFeed } from './change-event';
import { ChangeFeedReader } from './change-feed';
import { ChangePublisher } from './change-publisher';
import { OutboxSweeper } from './outbox-sweeper';

/** The change feed of one process: publishing its own writes, reading everyone's, sweeping leftovers. */
export interface LiveChanges {
  feed: ChangeFeed;
  publisher: ChangePublisher;
  /** Publishes what crashed writers left behind, once (start-up does it; tests call it). */
  sweep(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** `onDelivered`: how long after its change each event reached this process's subscribers (metrics). */
export function createLiveChanges(models: Models, config: ChangesConfig, logger: Logger, onDelivered?: (lagMs: number) => void): LiveChanges {
  const log = logger.child({ component: 'changes' });
  const reader = new ChangeFeedReader(models.changeEvents, log, { pollMs: config.pollMs, onDelivered });
  const publisher = new ChangePublisher({ ...models, logger: log, onPublished: () => reader.wake() });
  const sweeper = new OutboxSweeper({ ...models, publisher, logger: log, intervalMs: config.sweepIntervalMs, retentionMs: config.retentionMs });
  return {
    feed: reader,
    publisher,
    sweep: () => sweeper.sweep(),
    async start() {
      await reader.start();
      sweeper.start();
    },
    async stop() {
      await sweeper.stop();
      await reader.stop();
    },
  };
}
