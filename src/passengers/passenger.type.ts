import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { LIST_ROWS, listComplexity } from '../graphql-kit/complexity';
import { Node } from '../graphql-kit/node';

/*
 * Passenger records keep the interface's own field names in GraphQL too (`luogonascita`,
 * `is_carring_infant`…): one vocabulary, so a record, its validation problems and the REST body
 * read the same whichever API a client uses, and the facade passes records through untouched.
 */

/**
 * The interface's fields of a passenger record, shared by stored records and upload previews
 * (decorated so type-graphql lets the subclasses inherit them; no field returns it, so it stays
 * out of the schema).
 */
@ObjectType({ description: 'The v0 interface’s fields of a passenger record.' })
abstract class PassengerFields {
  @Field(() => Int, { description: 'The flight the passenger belongs to (the interface’s name for the flight id).' })
  idvolo: number;

  @Field({ description: 'Surname, upper case.' })
  surname: string;

  @Field({ description: 'Given names, upper case.' })
  name: string;

  @Field({ description: 'Country of birth, ISO 3166-1 alpha-2.' })
  luogonascita: string;

  @Field({ description: 'Nationality, ISO 3166-1 alpha-2.' })
  nazionalita: string;

  @Field({ description: 'Travel document type: P passport, I identity card.' })
  typedoc: string;

  @Field({ description: 'Travel document number, upper case, without spaces.' })
  numberdoc: string;

  @Field({ description: 'Date of birth, YYYY-MM-DD.' })
  date_born: string;

  @Field({ description: 'Document expiry, YYYY-MM-DD.' })
  scadenza: string;

  @Field({ description: 'Document issuing state, ISO 3166-1 alpha-2.' })
  issuingstate: string;

  @Field(() => String, { nullable: true, description: 'E-mail address, lower case; null when not given.' })
  email: string | null;

  @Field(() => String, { nullable: true, description: 'E.164, e.g. +393331234567; null when not given.' })
  phone: string | null;

  @Field({ description: 'True when the passenger carries an infant (the interface spells it so).' })
  is_carring_infant: boolean;

  @Field({ description: 'M, F or I.' })
  gender: string;

  @Field(() => Int, { nullable: true, description: 'The recordId of the parent record in the same list (an infant’s carrying adult).' })
  parent_id: number | null;

  @Field(() => Int, { nullable: true, description: 'The row_number of the parent row within the same list.' })
  row_number_parent_id: number | null;

  @Field(() => Int, { description: 'Position in the list, from 1.' })
  row_number: number;
}

/*
 * A record's number (the interface's `id`) is unique only within its flight's list, so it cannot be
 * the GraphQL `id`: clients that normalise by `__typename` + `id` (Apollo Client's InMemoryCache,
 * urql's graphcache, Relay) would merge flight 1's passenger 1 with flight 2's. The GraphQL `id` is
 * global (see passengerGlobalId) and the number is `recordId`; the REST facade aliases it back to `id`.
 */

@ObjectType({
  description:
    'A stored passenger record, with the field names of the v0 interface. `id` identifies it across flights (for client caches); `recordId` is its number within the flight’s list (the interface’s `id`).',
  implements: Node,
})
export class Passenger extends PassengerFields {
  // The stored record's `id` is the interface's number: PassengerResolver turns it into the
  // schema's `recordId` and computes the global `id`.
  id: number;
}

@ObjectType({
  description:
    'A passenger record read from a spreadsheet by uploadPassengerList: a preview, not stored, so it has no `id`. Send it in pushPassengerList’s `created` with a recordId of your choice as `id`.',
})
export class PassengerPreview extends PassengerFields {
  @Field(() => Int, { name: 'recordId', nullable: true, description: 'Always null: a preview has no record number until it is pushed (the REST upload shows it as `"id": null`).' })
  id: null;
}

@InputType({
  description:
    'A passenger record in a push. Every field is optional here so that all problems of a change set come back together (422); in `created` the interface’s required fields must be present, in `modified` absent fields keep their stored value.',
})
export class PassengerInput {
  @Field(() => Int, { nullable: true, description: 'The record’s number within the flight’s list (Passenger.recordId, the v0 interface’s `id`): in `created` a new integer of your choice, unique within the flight; in `modified` the record to change.' })
  id?: number | null;

  @Field(() => Int, { nullable: true, description: 'The flight id; when present it must equal the flightId argument.' })
  idvolo?: number | null;

  @Field(() => String, { nullable: true, description: 'Surname (stored upper case).' })
  surname?: string | null;

  @Field(() => String, { nullable: true, description: 'Given names (stored upper case).' })
  name?: string | null;

  @Field(() => String, { nullable: true, description: 'Country of birth: ISO 3166-1 alpha-2 or alpha-3 code, or English name.' })
  luogonascita?: string | null;

  @Field(() => String, { nullable: true, description: 'Nationality: ISO 3166-1 alpha-2 or alpha-3 code, or English name.' })
  nazionalita?: string | null;

  @Field(() => String, { nullable: true, description: 'Travel document type: P passport, I identity card.' })
  typedoc?: string | null;

  @Field(() => String, { nullable: true, description: 'Travel document number.' })
  numberdoc?: string | null;

  @Field(() => String, { nullable: true, description: 'Date of birth, YYYY-MM-DD (other common date formats are normalised).' })
  date_born?: string | null;

  @Field(() => String, { nullable: true, description: 'Document expiry, YYYY-MM-DD (other common date formats are normalised).' })
  scadenza?: string | null;

  @Field(() => String, { nullable: true, description: 'Document issuing state: ISO 3166-1 code or English name.' })
  issuingstate?: string | null;

  @Field(() => String, { nullable: true, description: 'E-mail address, or null.' })
  email?: string | null;

  @Field(() => String, { nullable: true, description: 'Phone number, international form preferred (stored as E.164), or null.' })
  phone?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'True when the passenger carries an infant.' })
  is_carring_infant?: boolean | null;

  @Field(() => String, { nullable: true, description: 'M, F or I.' })
  gender?: string | null;

  @Field(() => Int, { nullable: true, description: 'The recordId of the parent record (an infant’s carrying adult), or null.' })
  parent_id?: number | null;

  @Field(() => Int, { nullable: true, description: 'In `created`: the parent’s row_number in this push (as the upload returns it).' })
  row_number_parent_id?: number | null;

  @Field(() => Int, { nullable: true, description: 'Position in the list, from 1 (as the upload returns it).' })
  row_number?: number | null;
}

@InputType({ description: 'One change set of a flight’s passenger list, applied all or nothing.' })
export class PassengerListChangesInput {
  @Field(() => [PassengerInput], { description: 'New records, each with a client-chosen integer id (its recordId) unique within the flight.' })
  created: PassengerInput[];

  @Field(() => [PassengerInput], { description: 'Records named by id (their recordId); present fields replace the stored ones.' })
  modified: PassengerInput[];

  @Field(() => [Int], { nullable: 'items', description: 'The recordIds of the records to delete.' })
  deleted: (number | null)[];
}

@ObjectType({ description: 'Something worth a look that did not stop the push.' })
export class PassengerListWarning {
  @Field({ description: 'DOCUMENT_EXPIRES_BEFORE_DEPARTURE, INFANT_WITHOUT_PARENT, PARENT_LINK_ON_NON_INFANT, CARRIER_WITHOUT_INFANT, INFANT_CARRIER_NOT_MARKED, DUPLICATE_DOCUMENT.' })
  code: string;

  // Not `id`: a record number is no identity of the warning, and caches would merge two warnings about one record.
  @Field(() => Int, { name: 'recordId', nullable: true, description: 'The recordId of the passenger the warning is about; null when it concerns the list.' })
  id: number | null;

  @Field({ description: 'The warning in words, naming the records concerned.' })
  message: string;
}

@ObjectType({ description: 'The result of an applied push.' })
export class PassengerListPushResult {
  @Field({ description: 'Always "ok": a push that fails answers an error instead.' })
  status: string;

  // The REST push answers `flight_id` (the interface's name); its operation aliases this field.
  @Field(() => Int, { name: 'flightId', description: 'The flight whose list was changed.' })
  flight_id: number;

  @Field(() => Int, { description: 'The list’s version after the push (also the REST ETag).' })
  version: number;

  @Field(() => Int, { description: 'Records created (a retried identical record is not counted).' })
  created: number;

  @Field(() => Int, { description: 'Records modified.' })
  modified: number;

  @Field(() => Int, { description: 'Records deleted.' })
  deleted: number;

  @Field(() => Int, { description: 'Records in the list after the push.' })
  passengers: number;

  @Field(() => [PassengerListWarning], { description: 'Remarks on the list after the push (expiring documents, infants and their carriers, duplicate documents); they never block a push.' })
  warnings: PassengerListWarning[];
}

@ObjectType({ description: 'A flight’s passenger list.' })
export class PassengerList {
  @Field(() => Int, { description: 'The flight the list belongs to.' })
  flightId: number;

  @Field(() => Int, { description: 'Increases by one with every applied push; 0 when the flight has no list yet. Pass it as expectedVersion (REST: If-Match) to detect concurrent changes.' })
  version: number;

  @Field(() => [Passenger], { complexity: listComplexity(LIST_ROWS.passengers), description: 'The records, by row_number.' })
  passengers: Passenger[];
}
