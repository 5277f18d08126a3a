import { randomUUID } from 'node:crypto';
import type { WebhooksConfig } from '../config';
import type { Logger } from '../logger';
import type { AttemptOutcome } from './webhook-attempt';
import { DeliveryStatus, RECENT_ATTEMPTS, type WebhookDeliveryDocument, type WebhookDeliveryModel } from './webhook-delivery.model';
import type { WebhookEndpointDocument, WebhookEndpointModel } from './webhook-endpoint.model';
import { pauseDeliveries } from './webhook-endpoint.service';
import { retryDelayMs } from './webhook-retry';

/**
 * Added to the attempt time-out to make a claim's lease: time for reading the endpoint before the
 * attempt and recording the outcome after it. A lease outlives any attempt, so two processes never
 * attempt the same delivery at once; a crashed process's lease simply runs out.
 */
export const LEASE_MARGIN_MS = 60_000;

export interface DeliveryQueueDeps {
  webhookDeliveries: WebhookDeliveryModel;
  webhookEndpoints: WebhookEndpointModel;
  config: WebhooksConfig;
  logger: Logger;
}

/** How fresh a busy endpoint's stored lastSuccessAt is kept. */
export const SUCCESS_NOTE_INTERVAL_MS = 10_000;

/** Due deliveries looked at per free slot, so that endpoints at their limit do not hide the others'. */
const CANDIDATES_PER_SLOT = 4;

export interface ClaimedBatch {
  /** The deliveries this claim holds the lease of. */
  claimed: WebhookDeliveryDocument[];
  /** Due deliveries seen: more may be due when some were seen (another process may have taken them). */
  found: number;
}

/** What recording an attempt decided. */
export interface RecordedAttempt {
  status: DeliveryStatus;
  /** When the next attempt is due (a retry), else undefined. */
  nextAttemptAt?: Date;
}

/** The persistent queue in `webhook_deliveries`: claiming due deliveries and recording attempts. */
export class DeliveryQueue {
  constructor(private readonly deps: DeliveryQueueDeps) {}

  /**
   * Takes up to `free` of the oldest due deliveries with a lease, keeping each endpoint within
   * WEBHOOK_CONCURRENCY_PER_ENDPOINT counting those in flight here: their `nextAttemptAt` moves to the lease's end and they carry a token of this claim.
   * The update takes only deliveries still due, each atomically, so concurrent claimers in any
   * number of processes never take the same one. Three queries for a whole batch.
   */
  async claim(free: number, inFlightByEndpoint: ReadonlyMap<string, number>): Promise<ClaimedBatch> {
    const { concurrencyPerEndpoint } = this.deps.config;
    const room = (endpointId: string) => concurrencyPerEndpoint - (inFlightByEndpoint.get(endpointId) ?? 0);
    const full = [...inFlightByEndpoint.keys()].filter((endpointId) => room(endpointId) <= 0);
    const now = new Date();
    const candidates = await this.deps.webhookDeliveries
      .find({ status: DeliveryStatus.Pending, nextAttemptAt: { $lte: now }, ...(full.length ? { endpointId: { $nin: full } } : {}) }, { _id: 1, endpointId: 1 })
      .sort({ nextAttemptAt: 1 })
      .limit(free * CANDIDATES_PER_SLOT)
      .lean<Pick<WebhookDeliveryDocument, '_id' | 'endpointId'>[]>()
      .exec();
    const chosen: string[] = [];
    const taken = new Map<string, number>();
    for (const { _id, endpointId } of candidates) {
      if (chosen.length >= free) break;
      const already = taken.get(endpointId) ?? 0;
      if (already >= room(endpointId)) continue;
      chosen.push(_id);
      taken.set(endpointId, already + 1);
    }
    if (chosen.length === 0) return { claimed: [], found: candidates.length };
    const leaseToken = randomUUID();
    const leaseEnd = new Date(now.getTime() + this.deps.config.attemptTimeoutMs + LEASE_MARGIN_MS);
    await this.deps.webhookDeliveries
      .updateMany({ _id: { $in: chosen }, status: DeliveryStatus.Pending, nextAttemptAt: { $lte: now } }, { $set: { nextAttemptAt: leaseEnd, leaseToken } })
      .exec();
    const claimed = await this.deps.webhookDeliveries.find({ _id: { $in: chosen }, leaseToken }).lean<WebhookDeliveryDocument[]>().exec();
    return { claimed, found: candidates.length };
  }

  /** The claimed delivery's endpoint is gone (deleted meanwhile): so is the delivery. */
  async dropOrphan(delivery: WebhookDeliveryDocument): Promise<void> {
    await this.deps.webhookDeliveries.deleteOne({ _id: delivery._id, leaseToken: delivery.leaseToken }).exec();
  }

  /** The claimed delivery's endpoint is disabled: it waits, paused, for the endpoint to be enabled. */
  async pause(delivery: WebhookDeliveryDocument): Promise<void> {
    await this.deps.webhookDeliveries
      .updateOne({ _id: delivery._id, leaseToken: delivery.leaseToken }, { $set: { status: DeliveryStatus.Paused, nextAttemptAt: null, leaseToken: null } })
      .exec();
  }

  /** Gives the lease back unused (the process is stopping): the delivery is due again at once, for anyone. */
  async release(delivery: WebhookDeliveryDocument): Promise<void> {
    await this.deps.webhookDeliveries.updateOne({ _id: delivery._id, leaseToken: delivery.leaseToken }, { $set: { nextAttemptAt: new Date(), leaseToken: null } }).exec();
  }

  /**
   * Records an attempt under the claim's lease (a delivery replayed, paused or deleted meanwhile is
   * left as it now is), then the endpoint's health: a success clears its failure window; a failure
   * opens one, and disables the endpoint once the window is older than WEBHOOK_DISABLE_AFTER_MS.
   */
  async record(delivery: WebhookDeliveryDocument, endpoint: WebhookEndpointDocument, outcome: AttemptOutcome, attemptedAt: Date): Promise<RecordedAttempt> {
    const { config } = this.deps;
    const now = new Date();
    const purgeAt = new Date(now.getTime() + config.logRetentionMs);
    let result: RecordedAttempt;
    const set: Partial<WebhookDeliveryDocument> = { lastAttemptAt: attemptedAt, lastStatusCode: outcome.statusCode, lastError: outcome.error, leaseToken: null };
    const inc: Record<string, number> = { attempts: 1 };
    if (outcome.delivered) {
      result = { status: DeliveryStatus.Delivered };
      Object.assign(set, { status: DeliveryStatus.Delivered, deliveredAt: now, nextAttemptAt: null, purgeAt });
    } else {
      const delay = retryDelayMs(config.retryScheduleMs, delivery.retriesUsed);
      if (delay === undefined) {
        result = { status: DeliveryStatus.Failed };
        Object.assign(set, { status: DeliveryStatus.Failed, nextAttemptAt: null, purgeAt });
      } else {
        result = { status: DeliveryStatus.Pending, nextAttemptAt: new Date(now.getTime() + delay) };
        Object.assign(set, { status: DeliveryStatus.Pending, nextAttemptAt: result.nextAttemptAt });
        inc.retriesUsed = 1;
      }
    }
    const attempt = { at: attemptedAt, durationMs: outcome.durationMs, statusCode: outcome.statusCode, error: outcome.error };
    const { matchedCount } = await this.deps.webhookDeliveries
      .updateOne(
        { _id: delivery._id, leaseToken: delivery.leaseToken },
        { $set: set, $inc: inc, $push: { recentAttempts: { $each: [attempt], $slice: -RECENT_ATTEMPTS } } },
      )
      .exec();
    if (matchedCount === 0) this.deps.logger.info({ deliveryId: delivery._id }, 'webhook delivery changed during its attempt (replayed, paused or deleted); its outcome is not recorded');
    await this.recordEndpointHealth(endpoint, outcome, now);
    return result;
  }

  /**
   * `endpoint` is the worker's cached copy, kept current here: a success is written only when it
   * ends a failure window or the stored lastSuccessAt is over SUCCESS_NOTE_INTERVAL_MS old, so a
   * busy endpoint costs no write per delivery.
   */
  private async recordEndpointHealth(endpoint: WebhookEndpointDocument, outcome: AttemptOutcome, now: Date): Promise<void> {
    const endpoints = this.deps.webhookEndpoints;
    if (outcome.delivered) {
      const stale = !endpoint.lastSuccessAt || now.getTime() - endpoint.lastSuccessAt.getTime() >= SUCCESS_NOTE_INTERVAL_MS;
      if (!endpoint.failingSince && !stale) return;
      await endpoints.updateOne({ _id: endpoint._id }, { $set: { lastSuccessAt: now, failingSince: null } }).exec();
      Object.assign(endpoint, { lastSuccessAt: now, failingSince: null });
      return;
    }
    if (!endpoint.failingSince) {
      await endpoints.updateOne({ _id: endpoint._id, failingSince: null }, { $set: { failingSince: now } }).exec();
      endpoint.failingSince = now;
    }
    const failingSince = endpoint.failingSince;
    const { disableAfterMs } = this.deps.config;
    if (now.getTime() - failingSince.getTime() < disableAfterMs) return;
    const reason = `no successful delivery since ${failingSince.toISOString()} (more than WEBHOOK_DISABLE_AFTER_MS, ${disableAfterMs} ms), last error: ${outcome.error}`;
    // The stored window decides (a success in another process may have closed it meanwhile).
    const { modifiedCount } = await endpoints
      .updateOne(
        { _id: endpoint._id, enabled: true, failingSince: { $lte: new Date(now.getTime() - disableAfterMs) } },
        { $set: { enabled: false, disabledAt: now, disabledReason: reason } },
      )
      .exec();
    if (modifiedCount === 0) return;
    endpoint.enabled = false;
    await pauseDeliveries(this.deps.webhookDeliveries, endpoint._id);
    this.deps.logger.warn({ endpointId: endpoint._id, failingSince }, 'webhook endpoint disabled: it has been failing for too long');
  }
}
