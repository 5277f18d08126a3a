import { Schema, type Connection, type Model } from 'mongoose';
import type { ChangeEventType } from '../changes/change-event';

export const DeliveryStatus = {
  /** Waiting for its next attempt (or in flight: `leaseToken` set and `nextAttemptAt` in the future). */
  Pending: 'pending',
  /** A 2xx answer arrived. */
  Delivered: 'delivered',
  /** Every attempt of the retry schedule failed. */
  Failed: 'failed',
  /** Its endpoint is disabled; re-enabling it resumes the delivery. */
  Paused: 'paused',
} as const;

export type DeliveryStatus = (typeof DeliveryStatus)[keyof typeof DeliveryStatus];

/** One attempt, as the delivery log keeps it. */
export interface DeliveryAttempt {
  at: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/** One event to one endpoint (collection `webhook_deliveries`): the persistent delivery queue and its log. */
export interface WebhookDeliveryDocument {
  /** `dlv_` + a random UUID. */
  _id: string;
  /** The change event's id: the `webhook-id` of every attempt. */
  eventId: string;
  eventSeq: number;
  eventType: ChangeEventType;
  flightId: number;
  endpointId: string;
  /** The exact JSON body sent (thin: ids, version, counts; never passenger fields). */
  payload: string;
  status: DeliveryStatus;
  /** Attempts made, replays included. */
  attempts: number;
  /** Retries of the schedule already spent since the delivery was created, resumed or replayed. */
  retriesUsed: number;
  /**
   * When a process may claim it: its next attempt, or, while an attempt is in flight, the end of
   * that attempt's lease (so a crashed process's delivery becomes due again by itself).
   */
  nextAttemptAt: Date | null;
  /** Set by the claim: only the holder of the lease records the attempt's outcome. */
  leaseToken: string | null;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  createdAt: Date;
  /** The most recent attempts (at most RECENT_ATTEMPTS). */
  recentAttempts: DeliveryAttempt[];
  /** Set when the delivery is finished (delivered or failed): the log forgets it then (TTL index). */
  purgeAt: Date | null;
}

/** Attempts the delivery log keeps per delivery (the default schedule makes 8). */
export const RECENT_ATTEMPTS = 10;

const attemptSchema = new Schema<DeliveryAttempt>(
  { at: Date, durationMs: Number, statusCode: { type: Number, default: null }, error: { type: String, default: null } },
  { _id: false },
);

export const webhookDeliverySchema = new Schema<WebhookDeliveryDocument>(
  {
    _id: { type: String, required: true },
    eventId: { type: String, required: true },
    eventSeq: { type: Number, required: true },
    eventType: { type: String, required: true },
    flightId: { type: Number, required: true },
    endpointId: { type: String, required: true },
    payload: { type: String, required: true },
    status: { type: String, required: true },
    attempts: { type: Number, required: true, default: 0 },
    retriesUsed: { type: Number, required: true, default: 0 },
    nextAttemptAt: { type: Date, default: null },
    leaseToken: { type: String, default: null },
    lastAttemptAt: { type: Date, default: null },
    lastStatusCode: { type: Number, default: null },
    lastError: { type: String, default: null },
    deliveredAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    recentAttempts: { type: [attemptSchema], default: [] },
    purgeAt: { type: Date, default: null },
  },
  { collection: 'webhook_deliveries', versionKey: false },
);
// Once per endpoint, whichever process (or how many at once) dispatches the event.
webhookDeliverySchema.index({ eventId: 1, endpointId: 1 }, { unique: true });
// The claim: due pending deliveries, oldest first.
webhookDeliverySchema.index({ status: 1, nextAttemptAt: 1 });
// The delivery log, newest first, per endpoint or across all.
webhookDeliverySchema.index({ endpointId: 1, eventSeq: -1, _id: -1 });
webhookDeliverySchema.index({ eventSeq: -1, _id: -1 });
webhookDeliverySchema.index({ purgeAt: 1 }, { expireAfterSeconds: 0 });

export type WebhookDeliveryModel = Model<WebhookDeliveryDocument>;

export function webhookDeliveryModel(connection: Connection): WebhookDeliveryModel {
  return connection.model<WebhookDeliveryDocument>('WebhookDelivery', webhookDeliverySchema);
}
