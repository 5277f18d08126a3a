/**
 * The change feed's vocabulary. Every committed change produces one event, written by the same
 * atomic update as the change (an entry of the changed document's `outbox`), then published with a
 * global sequence number into the `change_events` collection, from which every process of the
 * service reads (see README.md, "Live changes"). Events are thin: ids, times, versions and counts,
 * never passenger data.
 */
export const ChangeEventType = {
  FlightCreated: 'flight.created',
  FlightUpdated: 'flight.updated',
  FlightDeleted: 'flight.deleted',
  PassengerListUpdated: 'passenger_list.updated',
} as const;

export type ChangeEventType = (typeof ChangeEventType)[keyof typeof ChangeEventType];

export const ALL_CHANGE_EVENT_TYPES: readonly ChangeEventType[] = Object.freeze(Object.values(ChangeEventType));

/** Where a flight sits on the timeline: what a range subscriber needs to tell entering from leaving. */
export interface FlightPlacement {
  resourceId: number;
  departureAt: Date;
  arrivalAt: Date;
}

/** What a passenger_list.updated event says of the push (record ids, never their fields). */
export interface PassengerListEventData {
  /** The list's version after the push. */
  version: number;
  created: number[];
  modified: number[];
  deleted: number[];
  /** Passengers on the list after the push. */
  count: number;
}

/** An event as the changed document's outbox holds it, before it is published. */
export interface PendingChangeEvent {
  /** Unique and stable (`evt_` + UUID): the webhook-id of every delivery of this event. */
  id: string;
  type: ChangeEventType;
  /** When the change was committed. */
  at: Date;
  flightId: number;
  /** The flight's placement after the change; for flight.deleted, the last one it had; null if unknown. */
  flight: FlightPlacement | null;
  /** flight.updated only: the placement before the change. */
  previous?: FlightPlacement | null;
  /** passenger_list.updated only. */
  passengerList?: PassengerListEventData | null;
  /** The token subject that made the change. */
  subject: string;
}

/** A published event: `seq` orders all events of all flights (events of one flight in commit order). */
export interface ChangeEvent extends PendingChangeEvent {
  seq: number;
}

/**
 * Live events of every process, in `seq` order, from the moment of listening. A listener is called
 * synchronously for each event and must not throw or block: it queues the event and returns.
 */
export interface ChangeFeed {
  listen(listener: (event: ChangeEvent) => void): () => void;
}
