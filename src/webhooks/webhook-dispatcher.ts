import type { ChangeEventDocument, ChangeEventModel } from '../changes/change-event.model';
import { isDuplicateKey } from '../db/duplicate-key';
import { newDelivery } from './webhook-delivery.factory';
import type { WebhookDeliveryDocument, WebhookDeliveryModel } from './webhook-delivery.model';
import type { WebhookEndpointDocument, WebhookEndpointModel } from './webhook-endpoint.model';

/** Events read per query. */
const DISPATCH_BATCH = 100;

export interface WebhookDispatcherDeps {
  changeEvents: ChangeEventModel;
  webhookEndpoints: WebhookEndpointModel;
  webhookDeliveries: WebhookDeliveryModel;
}

type EndpointFilter = Pick<WebhookEndpointDocument, '_id' | 'eventTypes' | 'flightIds' | 'createdAt'>;

/** Whether the endpoint asked for this event (type, flight) and existed when it happened. */
export function endpointWants(endpoint: EndpointFilter, event: ChangeEventDocument): boolean {
  return (
    endpoint.eventTypes.includes(event.type) &&
    (endpoint.flightIds === null || endpoint.flightIds.includes(event.flightId)) &&
    endpoint.createdAt.getTime() <= event.at.getTime()
  );
}

/**
 * Turns published change events into deliveries: for each event not yet dispatched, in sequence
 * order, one delivery per enabled endpoint that wants it, then the event is marked dispatched. Any
 * number of processes may do this at once: the unique (eventId, endpointId) index keeps each
 * delivery once, and an event is marked only after all its deliveries exist, so a crash in between
 * dispatches it again (harmlessly). Returns how many deliveries this call created.
 */
export async function dispatchPendingEvents(deps: WebhookDispatcherDeps): Promise<number> {
  let created = 0;
  for (;;) {
    const events = await deps.changeEvents.find({ webhooksDispatched: false }).sort({ seq: 1 }).limit(DISPATCH_BATCH).lean<ChangeEventDocument[]>().exec();
    if (events.length === 0) return created;
    const endpoints = await deps.webhookEndpoints.find({ enabled: true }, { eventTypes: 1, flightIds: 1, createdAt: 1 }).lean<EndpointFilter[]>().exec();
    const now = new Date();
    const deliveries: WebhookDeliveryDocument[] = [];
    for (const event of events) {
      if (event.skip) continue;
      for (const endpoint of endpoints) if (endpointWants(endpoint, event)) deliveries.push(newDelivery(event, endpoint._id, now));
    }
    if (deliveries.length) created += await insertNew(deps.webhookDeliveries, deliveries);
    await deps.changeEvents.updateMany({ _id: { $in: events.map((event) => event._id) } }, { $set: { webhooksDispatched: true } }).exec();
    if (events.length < DISPATCH_BATCH) return created;
  }
}

/** Inserts the deliveries another process has not; its copies are refused by the unique index. */
async function insertNew(model: WebhookDeliveryModel, deliveries: WebhookDeliveryDocument[]): Promise<number> {
  try {
    const result = await model.collection.insertMany(deliveries as never[], { ordered: false });
    return result.insertedCount;
  } catch (error) {
    const writeErrors = (error as { writeErrors?: unknown[] }).writeErrors;
    const errors = Array.isArray(writeErrors) ? writeErrors : [error];
    if (!errors.every((writeError) => isDuplicateKey(writeError) || isDuplicateKey((writeError as { err?: unknown }).err))) throw error;
    return deliveries.length - errors.length;
  }
}
