/*
 * Relay's store (and any client that keys records by `id` alone) needs ids unique across types
 * (the Global Object Identification spec). Flights and resources are numbered per type, so their
 * GraphQL `id` carries the type ("Flight:42", "Resource:3"); the numbers stay in `flightId` and
 * `resourceId`, which arguments and the REST facade use. A passenger's id was already global
 * ("<flightId>:<recordId>"). Readable on purpose, for logs and support, but documented as opaque.
 */

export function flightGlobalId(flightId: number): string {
  return `Flight:${flightId}`;
}

export function resourceGlobalId(resourceId: number): string {
  return `Resource:${resourceId}`;
}

/**
 * A stored record's global id: its flight and its number in that flight's list, e.g. `42:7`.
 * Clients treat it as opaque; it never changes while the record exists.
 */
export function passengerGlobalId(record: { idvolo: number; id: number | null }): string {
  return `${record.idvolo}:${record.id}`;
}

type ParsedId = { type: 'Flight' | 'Resource'; id: number } | { type: 'Passenger'; flightId: number; recordId: number } | null;

/** Reads the ids above and passengers' `<flightId>:<recordId>` (passengerGlobalId); null for anything else. */
export function parseGlobalId(globalId: string): ParsedId {
  const typed = /^(Flight|Resource):(\d{1,15})$/.exec(globalId);
  if (typed) return { type: typed[1] as 'Flight' | 'Resource', id: Number(typed[2]) };
  const passenger = /^(\d{1,15}):(-?\d{1,15})$/.exec(globalId);
  if (passenger) return { type: 'Passenger', flightId: Number(passenger[1]), recordId: Number(passenger[2]) };
  return null;
}
