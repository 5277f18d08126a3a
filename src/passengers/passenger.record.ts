import { PASSENGER_FIELDS, type PassengerFieldName, type PassengerFieldValues } from './passenger.fields';

/** Document type codes: P passport, I identity card. */
export type DocumentType = (typeof PASSENGER_FIELDS.typedoc.values)[number];

/** Gender codes that occur in the interface: M, F and I. */
export type GenderCode = (typeof PASSENGER_FIELDS.gender.values)[number];

/**
 * A passenger's own fields, normalised: what the upload reads, the push checks and the list stores.
 * Derived from the declaration in passenger.fields.ts (names, types, nullability).
 */
export type PassengerFields = PassengerFieldValues<PassengerFieldName>;

/**
 * One passenger as the broker interface exchanges it (upload response and `created` push group).
 * Field names follow the interface exactly, including the spelling of `is_carring_infant`.
 */
export interface PassengerRecord extends PassengerFields, PassengerFieldValues<'idvolo' | 'parent_id' | 'row_number_parent_id' | 'row_number'> {
  /** Record identifier; null in the upload response. */
  id: number | null;
}
