import type { QueryFilter } from 'mongoose';
import type { ChangeEventType } from '../changes/change-event';
import type { ChangeEventDocument, ChangeEventModel } from '../changes/change-event.model';
import { isDuplicateKey } from '../db/duplicate-key';
import { conflict, invalidInput, notFound } from '../errors';
import { newDelivery } from './webhook-delivery.factory';
import { DeliveryStatus, type DeliveryAttempt, type WebhookDeliveryDocument, type WebhookDeliveryModel } from './webhook-delivery.model';
import type { WebhookEndpointDocument, WebhookEndpointModel } from './webhook-endpoint.model';
import { endpointNotFound } from './webhook-endpoint.service';

/** Most deliveries one page of the log holds. */
export const MAX_DELIVERY_PAGE = 100;

/** A delivery as the log shows it. */
export interface WebhookDeliveryData {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: ChangeEventType;
  flightId: number;
  status: DeliveryStatus;
  /** An attempt is running now (in some process). */
  inFlight: boolean;
  attempts: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  createdAt: Date;
  recentAttempts: DeliveryAttempt[];
  payload: string;
}

export interface WebhookDeliveryPage {
  deliveries: WebhookDeliveryData[];
  /** Pass as `after` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

export interface DeliveryLogQuery {
  endpointId?: string | null;
  eventId?: string | null;
  status?: DeliveryStatus | null;
  first: number;
  after?: string | null;
}

export interface WebhookDeliveryServiceDeps {
  webhookDeliveries: WebhookDeliveryModel;
  webhookEndpoints: WebhookEndpointModel;
  changeEvents: ChangeEventModel;
  /** Deliveries became due through this process (replays): its worker looks at once. */
  onChanged: () => void;
}

function isInFlight(doc: WebhookDeliveryDocument, now = Date.now()): boolean {
  return doc.status === DeliveryStatus.Pending && doc.leaseToken !== null && (doc.nextAttemptAt?.getTime() ?? 0) > now;
}

export function toDeliveryData(doc: WebhookDeliveryDocument): WebhookDeliveryData {
  const { _id, eventSeq: _seq, leaseToken: _lease, retriesUsed: _retries, purgeAt: _purge, ...rest } = doc;
  const inFlight = isInFlight(doc);
  // While in flight, nextAttemptAt holds the lease's end, which is no planned attempt.
  return { id: _id, ...rest, inFlight, nextAttemptAt: inFlight ? null : doc.nextAttemptAt };
}

/** The cursor is the last row's place in the log's order (event sequence, then id), opaque to clients. */
function encodeCursor(doc: WebhookDeliveryDocument): string {
  return Buffer.from(JSON.stringify([doc.eventSeq, doc._id])).toString('base64url');
}

function decodeCursor(cursor: string): [number, string] {
  try {
    const [seq, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (Number.isSafeInteger(seq) && typeof id === 'string') return [seq as number, id];
  } catch {
    // Reported below.
  }
  throw invalidInput('after is not a cursor this log returned', [{ field: 'after', message: 'pass the nextCursor of the previous page' }]);
}

/** The delivery log and replays (scope webhooks:manage). */
export class WebhookDeliveryService {
  constructor(private readonly deps: WebhookDeliveryServiceDeps) {}

  /** Newest first (by event), at most MAX_DELIVERY_PAGE a page. */
  async list(query: DeliveryLogQuery): Promise<WebhookDeliveryPage> {
    if (!Number.isInteger(query.first) || query.first < 1 || query.first > MAX_DELIVERY_PAGE) {
      throw invalidInput(`first must be from 1 to ${MAX_DELIVERY_PAGE}, got ${query.first}`, [{ field: 'first', message: `from 1 to ${MAX_DELIVERY_PAGE}` }]);
    }
    const filter: QueryFilter<WebhookDeliveryDocument> = {};
    if (query.endpointId) filter.endpointId = query.endpointId;
    if (query.eventId) filter.eventId = query.eventId;
    if (query.status) filter.status = query.status;
    if (query.after) {
      const [seq, id] = decodeCursor(query.after);
      filter.$or = [{ eventSeq: { $lt: seq } }, { eventSeq: seq, _id: { $lt: id } }];
    }
    const docs = await this.deps.webhookDeliveries
      .find(filter)
      .sort({ eventSeq: -1, _id: -1 })
      .limit(query.first + 1)
      .lean<WebhookDeliveryDocument[]>()
      .exec();
    const page = docs.slice(0, query.first);
    return { deliveries: page.map(toDeliveryData), nextCursor: docs.length > query.first ? encodeCursor(page[page.length - 1]) : null };
  }

  async get(id: string): Promise<WebhookDeliveryData | null> {
    const doc = await this.deps.webhookDeliveries.findById(id).lean<WebhookDeliveryDocument>().exec();
    return doc ? toDeliveryData(doc) : null;
  }

  /**
   * Sends the delivery again, now, with the whole retry schedule ahead of it, whatever its status
   * (the receiver tells a repeat by its webhook-id). Refused while its endpoint is disabled or while
   * an attempt is in flight.
   */
  async replay(id: string): Promise<WebhookDeliveryData> {
    const doc = await this.deps.webhookDeliveries.findById(id).lean<WebhookDeliveryDocument>().exec();
    if (!doc) throw notFound(`Webhook delivery ${id} does not exist`);
    await this.requireEnabledEndpoint(doc.endpointId);
    const now = new Date();
    const notInFlight = { $or: [{ status: { $ne: DeliveryStatus.Pending } }, { leaseToken: null }, { nextAttemptAt: { $lte: now } }] };
    const replayed = await this.deps.webhookDeliveries
      .findOneAndUpdate(
        { _id: id, ...notInFlight },
        { $set: { status: DeliveryStatus.Pending, nextAttemptAt: now, retriesUsed: 0, purgeAt: null } },
        { returnDocument: 'after' },
      )
      .lean<WebhookDeliveryDocument>()
      .exec();
    if (!replayed) throw conflict(`Webhook delivery ${id} is being attempted right now: replay it once the attempt is over`);
    this.deps.onChanged();
    return toDeliveryData(replayed);
  }

  /**
   * Sends a published event to an endpoint: replays their delivery if there is one, else creates it
   * (whatever the endpoint's filters say: the operator asked for it). The event must still be in
   * the change feed (CHANGE_EVENTS_RETENTION_DAYS).
   */
  async replayEvent(eventId: string, endpointId: string): Promise<WebhookDeliveryData> {
    const existing = await this.deps.webhookDeliveries.findOne({ eventId, endpointId }, { _id: 1 }).lean<{ _id: string }>().exec();
    if (existing) return this.replay(existing._id);
    await this.requireEnabledEndpoint(endpointId);
    const event = await this.deps.changeEvents.findById(eventId).lean<ChangeEventDocument>().exec();
    if (!event || event.skip) throw notFound(`Change event ${eventId} does not exist (or is past the change feed's retention)`);
    const delivery = newDelivery(event, endpointId, new Date());
    try {
      await this.deps.webhookDeliveries.collection.insertOne(delivery as never);
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // Dispatched meanwhile by the worker.
      return this.replayEvent(eventId, endpointId);
    }
    this.deps.onChanged();
    return toDeliveryData(delivery);
  }

  private async requireEnabledEndpoint(endpointId: string): Promise<void> {
    const endpoint = await this.deps.webhookEndpoints.findById(endpointId, { enabled: 1 }).lean<Pick<WebhookEndpointDocument, 'enabled'>>().exec();
    if (!endpoint) throw endpointNotFound(endpointId);
    if (!endpoint.enabled) throw conflict(`Webhook endpoint ${endpointId} is disabled: enable it (updateWebhookEndpoint) before replaying`);
  }
}
