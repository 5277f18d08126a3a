import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { LIST_ROWS, listComplexity } from '../graphql-kit/complexity';
import { Node } from '../graphql-kit/node';
import { PASSENGER_RECORD_FIELD_NAMES } from './passenger.fields';
import { withPassengerFields, withPassengerInputFields } from './passenger-fields.type';

/*
 * Passenger records keep the interface's own field names in GraphQL too (`luogonascita`,
 * `is_carring_infant`…): one vocabulary, so a record, its validation problems and the REST body
 * read the same whichever API a client uses, and the facade passes records through untouched.
 */

/** The interface's fields of a stored record or a preview, declared in passenger.fields.ts. */
const PassengerFields = withPassengerFields(class PassengerRecord {}, PASSENGER_RECORD_FIELD_NAMES);

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

/** The record's number leads the input's fields, before the declared ones. */
@InputType({ description: 'The number of a passenger record in a push.' })
abstract class PassengerInputId {
  @Field(() => Int, { nullable: true, description: 'The record’s number within the flight’s list (Passenger.recordId, the v0 interface’s `id`): in `created` a new integer of your choice, unique within the flight; in `modified` the record to change.' })
  id?: number | null;
}

@InputType({
  description:
    'A passenger record in a push. Every field is optional here so that all problems of a change set come back together (422); in `created` the interface’s required fields must be present, in `modified` absent fields keep their stored value.',
})
export class PassengerInput extends withPassengerInputFields(PassengerInputId, PASSENGER_RECORD_FIELD_NAMES) {}

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
