import { randomUUID } from 'node:crypto';
import type { ChangeEventType, FlightPlacement, PendingChangeEvent } from './change-event';

/** How long a committed change may wait in its document's outbox before a sweep publishes it. */
export const OUTBOX_GRACE_MS = 2000;

/** An outbox entry for a change about to be written (it goes into the same update as the change). */
export function pendingEvent(
  type: ChangeEventType,
  flightId: number,
  subject: string,
  fields: Pick<PendingChangeEvent, 'flight'> & Partial<Pick<PendingChangeEvent, 'previous' | 'passengerList'>>,
  at = new Date(),
): PendingChangeEvent {
  return { id: `evt_${randomUUID()}`, type, at, flightId, subject, ...fields };
}

/** A flight's placement on the timeline, from its stored fields. */
export function placementOf(flight: { resourceId: number; departure: { at: Date }; arrival: { at: Date } }): FlightPlacement {
  return { resourceId: flight.resourceId, departureAt: flight.departure.at, arrivalAt: flight.arrival.at };
}
