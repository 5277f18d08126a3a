import { setMaxListeners } from 'node:events';
import type { ChangeFeed } from '../changes/change-event';
import type { ChangeEventModel } from '../changes/change-event.model';
import type { WebhooksConfig } from '../config';
import type { Logger } from '../logger';
import { attemptDelivery, type AttemptContext } from './webhook-attempt';
import { DeliveryQueue } from './webhook-delivery-queue';
import { EndpointCache } from './webhook-endpoint-cache';
import { DeliveryStatus, type WebhookDeliveryDocument, type WebhookDeliveryModel } from './webhook-delivery.model';
import { dispatchPendingEvents } from './webhook-dispatcher';
import type { WebhookEndpointModel } from './webhook-endpoint.model';
import { createWebhookAgents, type WebhookAgents } from './webhook-http';

export const WEBHOOK_USER_AGENT = 'broker-flight-gateway-webhooks/1';

/** Retry times this process remembers to wake up for; beyond, the sweep finds the rest. */
const MAX_REMEMBERED_RETRIES = 10_000;

export interface WebhookWorkerDeps {
  changeEvents: ChangeEventModel;
  webhookEndpoints: WebhookEndpointModel;
  webhookDeliveries: WebhookDeliveryModel;
  config: WebhooksConfig;
  logger: Logger;
  /** Live events of every process: each one wakes the dispatcher. */
  changes?: ChangeFeed;
  /** Told each recorded attempt's outcome (the metrics count them). */
  onAttempt?: (outcome: 'delivered' | 'retrying' | 'failed') => void;
}

/**
 * The webhook background work of one process: dispatching published events into deliveries and
 * attempting due deliveries, at most WEBHOOK_CONCURRENCY at once (WEBHOOK_CONCURRENCY_PER_ENDPOINT
 * per endpoint, so one slow receiver cannot take every slot). It wakes on the change feed, on its
 * own retries' due times, on replays, and on a periodic sweep, which finds what no wake-up
 * announced: events and retries of other processes, leases of crashed ones, work left before a
 * restart. Every database call may fail: the failure is logged and the next sweep tries again.
 */
export class WebhookWorker {
  private readonly queue: DeliveryQueue;
  private readonly endpoints: EndpointCache;
  private readonly agents: WebhookAgents;
  private readonly stopController = new AbortController();
  private readonly attempts = new Set<Promise<void>>();
  private readonly inFlightByEndpoint = new Map<string, number>();
  private readonly retryTimes: number[] = [];
  private stopped = false;
  private started = false;
  private unlisten: (() => void) | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private retryTimer: { at: number; timer: NodeJS.Timeout } | undefined;
  private dispatching: Promise<void> | undefined;
  private dispatchAgain = false;
  private filling: Promise<void> | undefined;
  private fillAgain = false;

  constructor(private readonly deps: WebhookWorkerDeps) {
    this.queue = new DeliveryQueue(deps);
    this.endpoints = new EndpointCache(deps.webhookEndpoints);
    // No socket limit in the pools (an attempt must not queue behind another endpoint on the same
    // host:port): the claims keep each endpoint within its own limit and the whole within WEBHOOK_CONCURRENCY.
    this.agents = createWebhookAgents(deps.config.concurrency);
    // Each attempt in flight listens for the stop: up to WEBHOOK_CONCURRENCY listeners, by design.
    setMaxListeners(deps.config.concurrency + 1, this.stopController.signal);
  }

  /** Starts listening and sweeping; the first sweep runs at once (work left before a restart). */
  start(): void {
    if (this.stopped || this.started) return;
    this.started = true;
    this.unlisten = this.deps.changes?.listen(() => this.wakeDispatcher());
    this.sweep();
  }

  /** Endpoints or deliveries changed through this process's API: forget cached endpoints and look for due deliveries now. */
  endpointsChanged(): void {
    this.endpoints.clear();
    this.wakeDeliveries();
  }

  /** Looks for due deliveries now. */
  wakeDeliveries(): void {
    if (this.stopped || !this.started) return;
    if (this.filling) {
      this.fillAgain = true;
      return;
    }
    this.filling = this.fill()
      .catch((error: unknown) => this.warn(error, 'cannot claim webhook deliveries; the next sweep retries'))
      .finally(() => {
        this.filling = undefined;
        if (this.fillAgain) {
          this.fillAgain = false;
          this.wakeDeliveries();
        }
      });
  }

  /** Stops taking work, cuts attempts in flight short (their deliveries are due again at once) and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unlisten?.();
    clearTimeout(this.sweepTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer.timer);
    this.stopController.abort();
    await Promise.allSettled([this.dispatching, this.filling, ...this.attempts]);
    this.agents.destroy();
  }

  private wakeDispatcher(): void {
    if (this.stopped) return;
    if (this.dispatching) {
      this.dispatchAgain = true;
      return;
    }
    this.dispatching = dispatchPendingEvents(this.deps)
      .then((created) => {
        if (created > 0) this.wakeDeliveries();
      })
      .catch((error: unknown) => this.warn(error, 'cannot dispatch change events to webhooks; the next sweep retries'))
      .finally(() => {
        this.dispatching = undefined;
        if (this.dispatchAgain) {
          this.dispatchAgain = false;
          this.wakeDispatcher();
        }
      });
  }

  private sweep(): void {
    if (this.stopped) return;
    this.wakeDispatcher();
    this.wakeDeliveries();
    // Jittered, so processes started together do not sweep in step.
    this.sweepTimer = setTimeout(() => this.sweep(), this.deps.config.sweepIntervalMs * (0.75 + Math.random() / 2));
    this.sweepTimer.unref();
  }

  /** Claims and launches attempts while slots are free and deliveries are due. */
  private async fill(): Promise<void> {
    const { concurrency } = this.deps.config;
    while (!this.stopped && this.attempts.size < concurrency) {
      const { claimed, found } = await this.queue.claim(concurrency - this.attempts.size, this.inFlightByEndpoint);
      if (this.stopped) {
        // Stopped while claiming: hand them back now rather than leave them to their lease.
        await Promise.all(claimed.map((delivery) => this.queue.release(delivery)));
        return;
      }
      claimed.forEach((delivery) => this.launch(delivery));
      if (found === 0) return;
    }
  }

  private launch(delivery: WebhookDeliveryDocument): void {
    const endpointId = delivery.endpointId;
    this.inFlightByEndpoint.set(endpointId, (this.inFlightByEndpoint.get(endpointId) ?? 0) + 1);
    const attempt = this.deliver(delivery).finally(() => {
      this.attempts.delete(attempt);
      const left = (this.inFlightByEndpoint.get(endpointId) ?? 1) - 1;
      if (left > 0) this.inFlightByEndpoint.set(endpointId, left);
      else this.inFlightByEndpoint.delete(endpointId);
      this.wakeDeliveries();
    });
    this.attempts.add(attempt);
  }

  private async deliver(delivery: WebhookDeliveryDocument): Promise<void> {
    const log = this.deps.logger;
    try {
      const endpoint = await this.endpoints.get(delivery.endpointId);
      if (!endpoint) return await this.queue.dropOrphan(delivery);
      if (!endpoint.enabled) return await this.queue.pause(delivery);
      const attemptedAt = new Date();
      const outcome = await attemptDelivery(delivery, endpoint, this.attemptContext());
      if (outcome.interrupted) return await this.queue.release(delivery);
      const recorded = await this.queue.record(delivery, endpoint, outcome, attemptedAt);
      this.deps.onAttempt?.(recorded.status === DeliveryStatus.Delivered ? 'delivered' : recorded.status === DeliveryStatus.Failed ? 'failed' : 'retrying');
      const fields = { deliveryId: delivery._id, endpointId: endpoint._id, eventId: delivery.eventId, statusCode: outcome.statusCode, durationMs: outcome.durationMs };
      if (recorded.status === DeliveryStatus.Failed) log.warn({ ...fields, error: outcome.error }, 'webhook delivery failed: its retry schedule is spent');
      else if (recorded.nextAttemptAt) log.info({ ...fields, error: outcome.error, nextAttemptAt: recorded.nextAttemptAt }, 'webhook attempt failed; retrying later');
      if (recorded.nextAttemptAt) this.rememberRetry(recorded.nextAttemptAt.getTime());
    } catch (error) {
      this.warn(error, 'cannot complete a webhook attempt; its lease runs out and it is retried', { deliveryId: delivery._id });
    }
  }

  private attemptContext(): AttemptContext {
    const { config } = this.deps;
    return {
      policy: config,
      timeoutMs: config.attemptTimeoutMs,
      agents: this.agents,
      stopSignal: this.stopController.signal,
      userAgent: WEBHOOK_USER_AGENT,
    };
  }

  /** Wakes the worker when this process's retry is due, rather than at the next sweep. */
  private rememberRetry(at: number): void {
    if (this.stopped) return;
    if (this.retryTimes.length < MAX_REMEMBERED_RETRIES) this.retryTimes.push(at);
    this.armRetryTimer();
  }

  private armRetryTimer(): void {
    if (this.stopped || this.retryTimes.length === 0) return;
    const earliest = Math.min(...this.retryTimes);
    if (this.retryTimer && this.retryTimer.at <= earliest) return;
    if (this.retryTimer) clearTimeout(this.retryTimer.timer);
    const timer = setTimeout(() => {
      this.retryTimer = undefined;
      const now = Date.now();
      const later = this.retryTimes.filter((time) => time > now);
      this.retryTimes.splice(0, this.retryTimes.length, ...later);
      this.wakeDeliveries();
      this.armRetryTimer();
    }, Math.max(0, earliest - Date.now()));
    timer.unref();
    this.retryTimer = { at: earliest, timer };
  }

  private warn(error: unknown, message: string, fields: Record<string, unknown> = {}): void {
    if (!this.stopped) this.deps.logger.warn({ ...fields, err: { message: (error as Error).message } }, message);
  }
}
