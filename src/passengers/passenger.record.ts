/** Document type codes: P passport, I identity card. */
export type DocumentType = 'P' | 'I';

/** Gender codes that occur in the interface: M, F and I. */
export type GenderCode = 'M' | 'F' | 'I';

/** A passenger's own fields, normalised: what the upload reads, the push checks and the list stores. */
export interface PassengerFields {
  /** Upper case. */
  surname: string;
  /** Upper case. */
  name: string;
  /** Country of birth, ISO 3166-1 alpha-2. */
  luogonascita: string;
  /** Nationality, ISO 3166-1 alpha-2. */
  nazionalita: string;
  typedoc: DocumentType;
  numberdoc: string;
  /** Date of birth, `YYYY-MM-DD`. */
  date_born: string;
  /** Document expiry date, `YYYY-MM-DD`. */
  scadenza: string;
  /** Document issuing state, ISO 3166-1 alpha-2. */
  issuingstate: string;
  email: string | null;
  /** E.164, e.g. `+393331234567`. */
  phone: string | null;
  is_carring_infant: boolean;
  gender: GenderCode;
}

/**
 * One passenger as the broker interface exchanges it (upload response and `created` push group).
 * Field names follow the interface exactly, including the spelling of `is_carring_infant`.
 */
export interface PassengerRecord extends PassengerFields {
  /** Record identifier; null in the upload response. */
  id: number | null;
  /** Identifier of the flight the passenger belongs to. */
  idvolo: number;
  /** Identifier of a parent record. */
  parent_id: number | null;
  /** `row_number` of the parent row within the same list, or null. */
  row_number_parent_id: number | null;
  /** Position in the list, from 1. */
  row_number: number;
}
