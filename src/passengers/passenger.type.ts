import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { LIST_ROWS, listComplexity } from '../graphql/complexity';

/*
 * Passenger records keep the interface's own field names in GraphQL too (`luogonascita`,
 * `is_carring_infant`…): one vocabulary, so a record, its validation problems and the REST body
 * read the same whichever API a client uses, and the facade passes records through untouched.
 */

@ObjectType({ description: 'A passenger record, with the field names of the v0 interface.' })
export class Passenger {
  @Field(() => Int, { nullable: true, description: 'Record id; null in an upload preview.' })
  id: number | null;

  @Field(() => Int, { description: 'The flight the passenger belongs to.' })
  idvolo: number;

  @Field({ description: 'Upper case.' })
  surname: string;

  @Field({ description: 'Upper case.' })
  name: string;

  @Field({ description: 'Country of birth, ISO 3166-1 alpha-2.' })
  luogonascita: string;

  @Field({ description: 'Nationality, ISO 3166-1 alpha-2.' })
  nazionalita: string;

  @Field({ description: 'P passport, I identity card.' })
  typedoc: string;

  @Field()
  numberdoc: string;

  @Field({ description: 'Date of birth, YYYY-MM-DD.' })
  date_born: string;

  @Field({ description: 'Document expiry, YYYY-MM-DD.' })
  scadenza: string;

  @Field({ description: 'Document issuing state, ISO 3166-1 alpha-2.' })
  issuingstate: string;

  @Field(() => String, { nullable: true })
  email: string | null;

  @Field(() => String, { nullable: true, description: 'E.164, e.g. +393331234567.' })
  phone: string | null;

  @Field({ description: 'True when the passenger carries an infant (the interface spells it so).' })
  is_carring_infant: boolean;

  @Field({ description: 'M, F or I.' })
  gender: string;

  @Field(() => Int, { nullable: true, description: 'Id of the parent record (an infant’s carrying adult).' })
  parent_id: number | null;

  @Field(() => Int, { nullable: true, description: 'row_number of the parent row within the same list.' })
  row_number_parent_id: number | null;

  @Field(() => Int, { description: 'Position in the list, from 1.' })
  row_number: number;
}

@InputType({
  description:
    'A passenger record in a push. Every field is optional here so that all problems of a change set come back together (422); in `created` the interface’s required fields must be present, in `modified` absent fields keep their stored value.',
})
export class PassengerInput {
  @Field(() => Int, { nullable: true })
  id?: number | null;

  @Field(() => Int, { nullable: true, description: 'When present, must equal the flight id.' })
  idvolo?: number | null;

  @Field(() => String, { nullable: true })
  surname?: string | null;

  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true })
  luogonascita?: string | null;

  @Field(() => String, { nullable: true })
  nazionalita?: string | null;

  @Field(() => String, { nullable: true })
  typedoc?: string | null;

  @Field(() => String, { nullable: true })
  numberdoc?: string | null;

  @Field(() => String, { nullable: true })
  date_born?: string | null;

  @Field(() => String, { nullable: true })
  scadenza?: string | null;

  @Field(() => String, { nullable: true })
  issuingstate?: string | null;

  @Field(() => String, { nullable: true })
  email?: string | null;

  @Field(() => String, { nullable: true })
  phone?: string | null;

  @Field(() => Boolean, { nullable: true })
  is_carring_infant?: boolean | null;

  @Field(() => String, { nullable: true })
  gender?: string | null;

  @Field(() => Int, { nullable: true })
  parent_id?: number | null;

  @Field(() => Int, { nullable: true, description: 'In `created`: the parent’s row_number in this push (as the upload returns it).' })
  row_number_parent_id?: number | null;

  @Field(() => Int, { nullable: true })
  row_number?: number | null;
}

@InputType({ description: 'One change set of a flight’s passenger list, applied all or nothing.' })
export class PassengerListChangesInput {
  @Field(() => [PassengerInput], { description: 'New records, each with a client-chosen integer id unique within the flight.' })
  created: PassengerInput[];

  @Field(() => [PassengerInput], { description: 'Records with an id; present fields replace the stored ones.' })
  modified: PassengerInput[];

  @Field(() => [Int], { nullable: 'items', description: 'Ids of the records to delete.' })
  deleted: (number | null)[];
}

@ObjectType({ description: 'Something worth a look that did not stop the push.' })
export class PassengerListWarning {
  @Field({ description: 'DOCUMENT_EXPIRES_BEFORE_DEPARTURE, INFANT_WITHOUT_PARENT, PARENT_LINK_ON_NON_INFANT, CARRIER_WITHOUT_INFANT, INFANT_CARRIER_NOT_MARKED, DUPLICATE_DOCUMENT.' })
  code: string;

  @Field(() => Int, { nullable: true })
  id: number | null;

  @Field()
  message: string;
}

@ObjectType({ description: 'The result of an applied push.' })
export class PassengerListPushResult {
  @Field()
  status: string;

  @Field(() => Int)
  flight_id: number;

  @Field(() => Int, { description: 'The list’s version after the push (also the REST ETag).' })
  version: number;

  @Field(() => Int, { description: 'Records created (a retried identical record is not counted).' })
  created: number;

  @Field(() => Int)
  modified: number;

  @Field(() => Int)
  deleted: number;

  @Field(() => Int, { description: 'Records in the list after the push.' })
  passengers: number;

  @Field(() => [PassengerListWarning])
  warnings: PassengerListWarning[];
}

@ObjectType({ description: 'A flight’s passenger list.' })
export class PassengerList {
  @Field(() => Int)
  flightId: number;

  @Field(() => Int, { description: '0 when the flight has no list yet.' })
  version: number;

  @Field(() => [Passenger], { complexity: listComplexity(LIST_ROWS.passengers) })
  passengers: Passenger[];
}

@ObjectType({ description: 'One applied push: who, when, and what it did.' })
export class PassengerListChange {
  @Field(() => Int)
  version: number;

  @Field()
  at: Date;

  @Field({ description: 'The token subject of the caller.' })
  subject: string;

  @Field(() => String, { nullable: true })
  tokenId: string | null;

  @Field(() => String, { nullable: true })
  idempotencyKey: string | null;

  @Field(() => Int)
  created: number;

  @Field(() => Int)
  modified: number;

  @Field(() => Int)
  deleted: number;

  @Field(() => Int)
  passengers: number;
}
