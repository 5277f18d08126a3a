import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Scope } from '../auth';
import type { GraphQLContext } from '../graphql-kit/context';
import { badRequest } from '../errors';
import type { FlightData } from '../flights/flight.service';
import { Flight } from '../flights/flight.type';
import { LIST_ROWS, listComplexity } from '../graphql-kit/complexity';
import { Passenger, PassengerList, PassengerListChangesInput, PassengerListPushResult } from './passenger.type';
import { PassengerListChange, PassengerListDownload, PassengerListExportEntry } from './passenger-list-history.type';
import { insufficientScope } from '../auth/bearer-errors';
import { AppError, ErrorCode } from '../errors';
import { DOWNLOAD_LINK_SECONDS, downloadLinkKey, signedQuery } from './export/download-link';
import { EXPORT_FORMAT_NAMES, isExportFormat, needsFlight } from './export/export-format';
import type { PassengerChangeSet } from './passenger-list.plan';
import type { PassengerRecord } from './passenger.record';
import { passengerGlobalId } from '../shared/global-id';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

@Resolver(() => PassengerList)
export class PassengerListResolver {
  @Authorized(Scope.PassengersRead)
  @Query(() => PassengerList, { description: 'A flight’s passenger list and its version (0 and empty when it has none).' })
  passengerList(@Arg('flightId', () => Int, { description: 'The flight whose list to read (404 when unknown).' }) flightId: number, @Ctx() ctx: GraphQLContext) {
    return ctx.services.passengerLists.get(flightId);
  }

  @Authorized(Scope.PassengersRead)
  @Query(() => [PassengerListChange], { complexity: listComplexity(LIST_ROWS.history), description: 'Applied pushes of a flight’s list, newest first.' })
  passengerListHistory(@Arg('flightId', () => Int, { description: 'The flight whose pushes to list (404 when unknown).' }) flightId: number, @Ctx() ctx: GraphQLContext) {
    return ctx.services.passengerLists.history(flightId);
  }

  @Authorized(Scope.PassengersRead)
  @Query(() => [PassengerListExportEntry], {
    complexity: listComplexity(LIST_ROWS.history),
    description: 'Files made of a flight’s list (xlsx, CSV…), newest first: who, when, which format and version. The most recent 1,000 are kept.',
  })
  passengerListExports(@Arg('flightId', () => Int, { description: 'The flight whose exports to list (404 when unknown).' }) flightId: number, @Ctx() ctx: GraphQLContext) {
    return ctx.services.passengerLists.exports(flightId);
  }

  @Authorized(Scope.PassengersRead)
  @Query(() => PassengerListDownload, {
    description:
      'A signed link to GET the list as a file (xlsx, csv, pdf, paxlst) without a token, valid for five minutes: for a browser. The link carries the caller’s subject; the download is recorded as the caller’s export. pdf and paxlst also need timeline:read.',
  })
  async passengerListDownloadUrl(
    @Arg('flightId', () => Int, { description: 'The flight whose list to download (404 when unknown).' }) flightId: number,
    @Arg('format', () => String, { description: 'xlsx, csv, pdf or paxlst.' }) format: string,
    @Ctx() ctx: GraphQLContext,
  ) {
    const files = EXPORT_FORMAT_NAMES.filter((name) => name !== 'json');
    if (!isExportFormat(format) || format === 'json') {
      throw new AppError(ErrorCode.BAD_USER_INPUT, `format must be one of ${files.join(', ')}, got "${format}"`, { details: [{ field: 'format', message: `expected one of ${files.join(', ')}` }] });
    }
    if (needsFlight(format) && !ctx.principal!.scopes.has(Scope.TimelineRead)) throw insufficientScope(Scope.TimelineRead);
    const key = downloadLinkKey({ exportLinkSecret: ctx.config.exportLinkSecret, jwtSecret: ctx.config.auth.jwtSecret });
    if (!key) {
      throw new AppError(ErrorCode.UNPROCESSABLE, 'Signed download links need EXPORT_LINK_SECRET on a service that verifies tokens with a public key', {
        details: [{ field: 'format', message: 'set EXPORT_LINK_SECRET (at least 32 bytes) to sign download links' }],
      });
    }
    // 404 for an unknown or deleted flight, before a link to it exists.
    await ctx.services.passengerLists.exports(flightId);
    const expires = Math.floor(Date.now() / 1000) + DOWNLOAD_LINK_SECONDS;
    const query = signedQuery({ flightId, format, subject: ctx.principal!.subject, expires }, key);
    return { url: `${ctx.baseUrl}/api/broker/v0/flight/${flightId}/passenger?${query}`, expiresAt: new Date(expires * 1000) };
  }

  @Authorized(Scope.PassengersWrite)
  @Mutation(() => PassengerListPushResult, {
    description: 'Applies created, modified and deleted records to a flight’s passenger list, all or nothing.',
  })
  pushPassengerList(
    @Arg('flightId', () => Int, { description: 'The flight whose list to change (404 when unknown).' }) flightId: number,
    @Arg('changes', () => PassengerListChangesInput, { description: 'The records to create, modify and delete.' }) changes: PassengerListChangesInput,
    @Arg('expectedVersion', () => Int, { nullable: true, description: 'Fail with PRECONDITION_FAILED unless the list is at this version.' }) expectedVersion: number | null,
    @Arg('expectedVersions', () => [Int], {
      nullable: true,
      description: 'Fail with PRECONDITION_FAILED unless the list is at one of these versions (REST: If-Match listing several ETags); an empty list matches none. With expectedVersion too, the list may be at any of them.',
    })
    expectedVersions: number[] | null,
    @Arg('idempotencyKey', () => String, { nullable: true, description: 'Retries with the same key and changes within 24 hours return the first result.' }) idempotencyKey: string | null,
    @Ctx() ctx: GraphQLContext,
  ) {
    if (idempotencyKey !== null && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw badRequest('Idempotency-Key must be 1 to 200 visible ASCII characters', [{ field: 'Idempotency-Key', message: 'expected 1 to 200 visible ASCII characters, e.g. a UUID' }]);
    }
    return ctx.services.passengerLists.push({
      flightId,
      changes: plainChanges(changes),
      expectedVersion,
      expectedVersions,
      idempotencyKey,
      principal: ctx.principal!,
    });
  }
}

/** type-graphql hands over class instances; the plan (and the idempotency hash) wants plain data. */
function plainChanges(changes: PassengerListChangesInput): PassengerChangeSet {
  const plain = (record: object) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
  return { created: changes.created.map(plain), modified: changes.modified.map(plain), deleted: changes.deleted };
}

@Resolver(() => Flight)
export class FlightPassengersResolver {
  @Authorized(Scope.PassengersRead)
  @FieldResolver(() => [Passenger], { complexity: listComplexity(LIST_ROWS.passengers), description: 'The flight’s passenger list (scope passengers:read).' })
  passengers(@Root() flight: FlightData, @Ctx() ctx: GraphQLContext) {
    return ctx.loaders.passengersByFlight.load(flight.id);
  }
}

@Resolver(() => Passenger)
export class PassengerResolver {
  @FieldResolver(() => ID, {
    description: 'Identifies the record across all flights (`<flightId>:<recordId>`; treat it as opaque), so client caches keyed by __typename and id keep each flight’s passengers apart.',
  })
  id(@Root() record: PassengerRecord): string {
    return passengerGlobalId(record);
  }

  @FieldResolver(() => Int, {
    description: 'The record’s number within its flight’s list, chosen by the client that created it (the v0 interface’s `id`; what pushes name in `modified` and `deleted`).',
  })
  recordId(@Root() record: PassengerRecord): number {
    return record.id!;
  }
}
