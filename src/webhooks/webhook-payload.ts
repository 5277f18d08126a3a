import type { ChangeEvent } from '../changes/change-event';
import { flightGlobalId } from '../shared/global-id';

/**
 * The body of every delivery of an event, in Standard Webhooks' shape (`type`, `timestamp`,
 * `data`). Thin on purpose: the flight's ids, and for a passenger list its version and the ids of
 * the records created, modified and deleted; the receiver reads what it needs with its own token.
 * Never a passenger's fields, so a webhook carries no personal data.
 */
export function webhookPayload(event: Pick<ChangeEvent, 'type' | 'at' | 'flightId' | 'passengerList'>): string {
  const list = event.passengerList;
  const data = {
    flightId: event.flightId,
    id: flightGlobalId(event.flightId),
    ...(list ? { version: list.version, created: list.created, modified: list.modified, deleted: list.deleted, count: list.count } : {}),
  };
  return JSON.stringify({ type: event.type, timestamp: event.at.toISOString(), data });
}
