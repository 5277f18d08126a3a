import { randomUUID } from 'node:crypto';
import type { ChangeEventDocument } from '../changes/change-event.model';
import { DeliveryStatus, type WebhookDeliveryDocument } from './webhook-delivery.model';
import { webhookPayload } from './webhook-payload';

/** A new delivery of `event` to an endpoint, due at once. */
export function newDelivery(event: ChangeEventDocument, endpointId: string, now: Date): WebhookDeliveryDocument {
  return {
    _id: `dlv_${randomUUID().replace(/-/g, '')}`,
    eventId: event._id,
    eventSeq: event.seq,
    eventType: event.type,
    flightId: event.flightId,
    endpointId,
    payload: webhookPayload(event),
    status: DeliveryStatus.Pending,
    attempts: 0,
    retriesUsed: 0,
    nextAttemptAt: now,
    leaseToken: null,
    lastAttemptAt: null,
    lastStatusCode: null,
    lastError: null,
    deliveredAt: null,
    createdAt: now,
    recentAttempts: [],
    purgeAt: null,
  };
}
