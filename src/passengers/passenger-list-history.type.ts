import { Field, Int, ObjectType } from 'type-graphql';
import { listComplexity } from '../graphql-kit/complexity';
import { CHANGEABLE_PASSENGER_FIELD_NAMES } from './passenger.fields';
import { withPassengerFields } from './passenger-fields.type';

/*
 * The audit trail of a passenger list. Field names are the contract's (`luogonascita`,
 * `is_carring_infant`…), as in Passenger. Deleted records are their own type, not Passenger: a
 * Passenger is a Node whose global id resolves to the record now on the list, which a deleted
 * record is not.
 */

/**
 * Records one push's detail is assumed to list, for the cost estimate: a generous guess for an edit.
 * A bulk load lists more than estimated, but all details of a history together are bounded in bytes
 * (PASSENGER_LIST_HISTORY_DETAIL_BYTES), which bounds the work of any history query.
 */
const DETAIL_ROWS = 20;
/** Fields a record has that a push can change (a modification lists at most these). */
const AUDITED_FIELD_COUNT = CHANGEABLE_PASSENGER_FIELD_NAMES.length;

@ObjectType({ description: 'A field a push changed, with the values stored before and after.' })
export class PassengerFieldChange {
  @Field({ description: 'The field’s name in the v0 interface (`surname`, `luogonascita`, `is_carring_infant`, `parent_id`…).' })
  field: string;

  @Field(() => String, { nullable: true, description: 'The stored value before the push, as text (`true`/`false` for booleans, a decimal recordId for parent_id); null when it was empty.' })
  before: string | null;

  @Field(() => String, { nullable: true, description: 'The stored value after the push, as text; null when it is empty.' })
  after: string | null;
}

@ObjectType({ description: 'A record a push named in `modified`, with the fields that really changed.' })
export class PassengerListModification {
  @Field(() => Int, { description: 'The record’s number within the flight’s list (Passenger.recordId).' })
  recordId: number;

  @Field(() => [PassengerFieldChange], {
    complexity: listComplexity(AUDITED_FIELD_COUNT),
    description: 'Only the fields whose stored value changed; empty when the push sent the values already stored.',
  })
  changes: PassengerFieldChange[];
}

/** The deleted record's number leads its fields, before the declared ones. */
@ObjectType({ description: 'The number of a deleted passenger record.' })
abstract class PassengerListDeletedRecordId {
  @Field(() => Int, { name: 'recordId', description: 'The record’s number within the flight’s list (the v0 interface’s `id`).' })
  id: number;
}

/** The stored fields a push can change, with the record's descriptions (passenger.fields.ts). */
@ObjectType({ description: 'A record a push deleted, with the values it last had on the list.' })
export class PassengerListDeletedRecord extends withPassengerFields(PassengerListDeletedRecordId, CHANGEABLE_PASSENGER_FIELD_NAMES) {}

@ObjectType({
  description:
    'One applied push: who, when, and what it did. The record-by-record detail (createdIds, modifications, deletedRecords) is kept for the newest pushes within a size budget; older entries keep only their counts and say so with detailDropped.',
})
export class PassengerListChange {
  @Field(() => Int, { description: 'The list’s version this push produced.' })
  version: number;

  @Field({ description: 'When the push was applied.' })
  at: Date;

  @Field({ description: 'The token subject of the caller.' })
  subject: string;

  @Field(() => String, { nullable: true, description: 'The token’s jti, when it had one.' })
  tokenId: string | null;

  @Field(() => String, { nullable: true, description: 'The Idempotency-Key (idempotencyKey argument) the push was sent with, if any.' })
  idempotencyKey: string | null;

  @Field(() => Int, { description: 'Records created.' })
  created: number;

  @Field(() => Int, { description: 'Records modified.' })
  modified: number;

  @Field(() => Int, { description: 'Records deleted.' })
  deleted: number;

  @Field(() => Int, { description: 'Records in the list after the push.' })
  passengers: number;

  @Field({
    description:
      'True when only the counts of this push remain: its detail was dropped to keep the list’s size bounded (older pushes go first; a push whose detail alone is over the budget keeps none), or the push predates the detail. The detail fields are then null.',
  })
  detailDropped: boolean;

  @Field(() => [Int], { nullable: true, description: 'The recordIds the push created; null when the detail was dropped.' })
  createdIds: number[] | null;

  @Field(() => [PassengerListModification], {
    nullable: true,
    complexity: listComplexity(DETAIL_ROWS),
    description: 'Every record the push named in `modified`, field by field; null when the detail was dropped.',
  })
  modifications: PassengerListModification[] | null;

  @Field(() => [PassengerListDeletedRecord], {
    nullable: true,
    complexity: listComplexity(DETAIL_ROWS),
    description: 'The records the push deleted, with their last values; null when the detail was dropped. Gone with the list when its flight is deleted.',
  })
  deletedRecords: PassengerListDeletedRecord[] | null;
}

@ObjectType({ description: 'A file made of a list’s personal data (an xlsx or CSV export): who, when, which format and version. Exports change nothing else of the list.' })
export class PassengerListExportEntry {
  @Field({ description: 'When the file was made.' })
  at: Date;

  @Field({ description: 'The token subject of the caller.' })
  subject: string;

  @Field(() => String, { nullable: true, description: 'The token’s jti, when it had one.' })
  tokenId: string | null;

  @Field({ description: 'The file format: xlsx, csv (the `format` of GET /api/broker/v0/flight/<id>/passenger).' })
  format: string;

  @Field(() => Int, { description: 'The list version the file holds.' })
  version: number;
}

@ObjectType({ description: 'A link that downloads a flight’s list as a file without a token, for a few minutes.' })
export class PassengerListDownload {
  @Field({ description: 'GET it without Authorization: bound to the flight, the format, the caller and the expiry by its signature.' })
  url: string;

  @Field({ description: 'When the link stops working.' })
  expiresAt: Date;
}
