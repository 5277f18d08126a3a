/**
 * The passenger record's fields, declared once: name (the v0 contract's, spelling included:
 * `is_carring_infant`), value type, nullability, what a stored value is, what a push takes, the
 * JSON Schema refinements of a stored value and an example. Everything else is derived from this
 * table: the TypeScript record types (passenger.record.ts), the GraphQL output and input types and
 * the history's deleted record (passenger-fields.type.ts), the change plan's and the audit's field
 * lists, the mongoose sub-schema, the REST facade's record mapping and the OpenAPI schemas.
 *
 * Plain data: no GraphQL, no mongoose, so every floor can read it (type-graphql's
 * `examples/mixin-classes/` builds classes from shared pieces the same way).
 */

/** A field's value type: GraphQL `String`/`Boolean`/`Int`, JSON Schema `string`/`boolean`/`integer`. */
export type PassengerFieldKind = 'string' | 'boolean' | 'int';

export interface PassengerFieldDeclaration {
  kind: PassengerFieldKind;
  /** The stored value may be null (every field is nullable in a push, where absent means unchanged). */
  nullable: boolean;
  /** The codes a stored value is one of (TypeScript union, JSON Schema `enum`). */
  values?: readonly string[];
  /** The stored value, as every output shows it: GraphQL Passenger and the history, OpenAPI. */
  description: string;
  /** What a push takes in the field (GraphQL PassengerInput, OpenAPI PassengerInput): often more forms than are stored. */
  input: string;
  /** JSON Schema refinements of a stored value, for the OpenAPI document. */
  pattern?: string;
  format?: 'date';
  minimum?: number;
  /** A stored value, for the documentation (the OpenAPI `examples`). */
  example: string | number | boolean | null;
}

const COUNTRY_CODE = '^[A-Z]{2}$';

/**
 * The passenger's own fields, in the contract's order: what the upload reads from a row, the push
 * checks, the list stores and a history entry compares. Their order here is the order of every
 * derived list and schema.
 */
export const PASSENGER_FIELDS = {
  surname: {
    kind: 'string', nullable: false, example: 'ROSSI',
    description: 'Surname, upper case.',
    input: 'Surname (stored upper case).',
  },
  name: {
    kind: 'string', nullable: false, example: 'MARIO',
    description: 'Given names, upper case.',
    input: 'Given names (stored upper case).',
  },
  luogonascita: {
    kind: 'string', nullable: false, pattern: COUNTRY_CODE, example: 'IT',
    description: 'Country of birth, ISO 3166-1 alpha-2.',
    input: 'Country of birth: ISO 3166-1 alpha-2 or alpha-3 code, or English name.',
  },
  nazionalita: {
    kind: 'string', nullable: false, pattern: COUNTRY_CODE, example: 'IT',
    description: 'Nationality, ISO 3166-1 alpha-2.',
    input: 'Nationality: ISO 3166-1 alpha-2 or alpha-3 code, or English name.',
  },
  typedoc: {
    kind: 'string', nullable: false, values: ['P', 'I'], example: 'P',
    description: 'Travel document type: P passport, I identity card.',
    input: 'Travel document type: P passport, I identity card.',
  },
  numberdoc: {
    kind: 'string', nullable: false, example: 'YA1234567',
    description: 'Travel document number, upper case, without spaces.',
    input: 'Travel document number.',
  },
  date_born: {
    kind: 'string', nullable: false, format: 'date', example: '1980-05-17',
    description: 'Date of birth, YYYY-MM-DD.',
    input: 'Date of birth, YYYY-MM-DD (DD/MM/YYYY, DD.MM.YYYY and DD-MM-YYYY are read too; a date that reads both day first and month first, such as 05/06/1980, is refused).',
  },
  scadenza: {
    kind: 'string', nullable: false, format: 'date', example: '2031-05-16',
    description: 'Document expiry, YYYY-MM-DD.',
    input: 'Document expiry, YYYY-MM-DD (DD/MM/YYYY, DD.MM.YYYY and DD-MM-YYYY are read too; a date that reads both day first and month first, such as 05/06/2030, is refused).',
  },
  issuingstate: {
    kind: 'string', nullable: false, pattern: COUNTRY_CODE, example: 'IT',
    description: 'Document issuing state, ISO 3166-1 alpha-2.',
    input: 'Document issuing state: ISO 3166-1 code or English name.',
  },
  email: {
    kind: 'string', nullable: true, example: 'mario.rossi@example.com',
    description: 'E-mail address, its domain lower case (the part before the @ as written); null when not given.',
    input: 'E-mail address, or null.',
  },
  phone: {
    kind: 'string', nullable: true, pattern: '^\\+[1-9]\\d{6,14}$', example: '+393331234567',
    description: 'E.164, e.g. +393331234567; null when not given.',
    input: 'Phone number, international form preferred (stored as E.164), or null.',
  },
  is_carring_infant: {
    kind: 'boolean', nullable: false, example: false,
    description: 'True when the passenger carries an infant (the interface spells it so).',
    input: 'True when the passenger carries an infant.',
  },
  gender: {
    kind: 'string', nullable: false, values: ['M', 'F', 'I'], example: 'M',
    description: 'M, F or I.',
    input: 'M, F or I.',
  },
} as const satisfies Record<string, PassengerFieldDeclaration>;

/**
 * The fields of a record on a list besides its own: the flight, the parent link and the position.
 * `id` is not here: each face names and types it differently (the GraphQL global id and recordId,
 * the contract's integer, null in an upload preview).
 */
export const PASSENGER_LIST_FIELDS = {
  idvolo: {
    kind: 'int', nullable: false, example: 1,
    description: 'The flight the passenger belongs to (the interface’s name for the flight id).',
    input: 'The flight id; when present it must equal the flightId argument.',
  },
  parent_id: {
    kind: 'int', nullable: true, example: null,
    description: 'The recordId of the parent record in the same list (an infant’s carrying adult).',
    input: 'The recordId of the parent record (an infant’s carrying adult), or null.',
  },
  row_number_parent_id: {
    kind: 'int', nullable: true, example: null,
    description: 'The row_number of the parent row within the same list, as an upload reads it; null without a parent row, and always null in a stored record (its parent is parent_id).',
    input: 'In `created`: the parent’s row_number in this push (as the upload returns it).',
  },
  row_number: {
    kind: 'int', nullable: false, minimum: 1, example: 1,
    description: 'Position in the list, from 1.',
    input: 'Position in the list, from 1 (as the upload returns it).',
  },
} as const satisfies Record<string, PassengerFieldDeclaration>;

/** Every declared field, own fields and list fields, by name. */
export const PASSENGER_RECORD_FIELDS: Readonly<Record<PassengerRecordFieldName, PassengerFieldDeclaration>> = { ...PASSENGER_FIELDS, ...PASSENGER_LIST_FIELDS };

export type PassengerFieldName = keyof typeof PASSENGER_FIELDS;
export type PassengerListFieldName = keyof typeof PASSENGER_LIST_FIELDS;
export type PassengerRecordFieldName = PassengerFieldName | PassengerListFieldName;

/** The passenger's own fields, in the contract's order. */
export const PASSENGER_FIELD_NAMES = Object.keys(PASSENGER_FIELDS) as PassengerFieldName[];

/**
 * A record's fields in the contract's order (after `id`): the flight, the own fields, the parent
 * link and the position.
 */
export const PASSENGER_RECORD_FIELD_NAMES: readonly PassengerRecordFieldName[] = ['idvolo', ...PASSENGER_FIELD_NAMES, 'parent_id', 'row_number_parent_id', 'row_number'];

/** The stored fields a push can change (what a history entry compares): the own fields and the parent link. */
export const CHANGEABLE_PASSENGER_FIELD_NAMES: readonly (PassengerFieldName | 'parent_id')[] = [...PASSENGER_FIELD_NAMES, 'parent_id'];

/** The TypeScript type of a declared field's stored value. */
export type PassengerFieldValue<D> =
  | (D extends { values: readonly (infer V)[] } ? V : D extends { kind: 'boolean' } ? boolean : D extends { kind: 'int' } ? number : string)
  | (D extends { nullable: true } ? null : never);

type Declared = typeof PASSENGER_FIELDS & typeof PASSENGER_LIST_FIELDS;

/** The stored values of the named declared fields. */
export type PassengerFieldValues<K extends PassengerRecordFieldName> = { -readonly [Name in K]: PassengerFieldValue<Declared[Name]> };

/** The TypeScript type of what a push may send in a declared field (any value of its kind, or null). */
export type PassengerFieldInputValue<D> = (D extends { kind: 'boolean' } ? boolean : D extends { kind: 'int' } ? number : string) | null;

/** What a push may send in the named declared fields: each optional, each nullable. */
export type PassengerFieldInputs<K extends PassengerRecordFieldName> = { -readonly [Name in K]?: PassengerFieldInputValue<Declared[Name]> };

/** The values of declared fields as a transport carries them: codes as plain strings, nulls where the field allows them. */
export type PassengerFieldWireValues<K extends PassengerRecordFieldName> = {
  -readonly [Name in K]: (Declared[Name] extends { kind: 'boolean' } ? boolean : Declared[Name] extends { kind: 'int' } ? number : string) | (Declared[Name] extends { nullable: true } ? null : never);
};
