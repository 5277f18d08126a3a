import { performance } from 'node:perf_hooks';
import { Arg, Args, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { Scope } from '../auth';
import type { GraphQLContext } from '../graphql-kit/context';
import { DateRangeArgs } from './date-range.args';
import { parseDateRange, resolveTimeZone } from './date-range';
import { TimelineEvent, TimelineView } from './timeline-event.type';
import { dateRangeListComplexity } from '../graphql-kit/complexity';

@Resolver(() => TimelineEvent)
export class TimelineResolver {
  @Authorized(Scope.TimelineRead)
  @Query(() => [TimelineEvent], { complexity: dateRangeListComplexity, description: 'Flights whose time in the air overlaps the range, as legacy timeline entries, every start and end in one time zone. Needs scope timeline:read.' })
  timelineEvents(
    @Arg('view', () => TimelineView, { description: 'The order of the entries: CALENDAR or RESOURCE.' }) view: TimelineView,
    @Args(() => DateRangeArgs) { start, end }: DateRangeArgs,
    @Arg('timeZone', () => String, {
      nullable: true,
      description:
        'IANA time zone (e.g. Europe/Rome, or UTC) in which offset-less start and end are read and every entry’s start and end are shown. Default: the service’s TIMEZONE. Airport-local times are on Flight.departure.localTime and Flight.arrival.localTime.',
    })
    timeZone: string | null | undefined,
    @Ctx() ctx: GraphQLContext,
  ) {
    const zone = resolveTimeZone(timeZone, ctx.config.timezone);
    // The wait for a large read's turn counts against the request's execution time limit.
    const timeLimitMs = ctx.config.limits.graphqlTimeoutMs;
    const waitLimitMs = ctx.executionDeadline === undefined ? timeLimitMs : ctx.executionDeadline - performance.now();
    return ctx.services.timeline.events(view, parseDateRange(start, end, zone), zone, { ended: ctx.ended, waitLimitMs, timeLimitMs });
  }
}
