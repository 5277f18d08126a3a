import { Arg, Args, Authorized, Ctx, FieldResolver, Int, Resolver, Root, Subscription } from 'type-graphql';
import { Scope } from '../auth';
import type { ChangeEvent } from '../changes/change-event';
import type { GraphQLContext } from '../graphql-kit/context';
import { Flight } from '../flights/flight.type';
import { flightGlobalId } from '../shared/global-id';
import { DateRangeArgs } from '../timeline/date-range.args';
import { parseDateRange, resolveTimeZone } from '../timeline/date-range';
import { changeStreamFor } from './subscription-context';
import { TimelineChange, type TimelineChangeKind } from './timeline-change.type';
import { timelineChangeKind, type TimelineWindow } from './timeline-window';

interface TimelineChangedArgs {
  start: string;
  end: string;
  timeZone?: string | null;
  resourceId?: number | null;
}

/** Checks the range as timelineEvents does (a 400 naming the argument), then listens. */
function timelineChanges(args: TimelineChangedArgs, context: GraphQLContext) {
  const zone = resolveTimeZone(args.timeZone, context.config.timezone);
  const window: TimelineWindow = { range: parseDateRange(args.start, args.end, zone), resourceId: args.resourceId ?? null };
  return changeStreamFor(context, (event) => {
    const kind = timelineChangeKind(event, window);
    return kind && toTimelineChange(event, kind);
  });
}

function toTimelineChange(event: ChangeEvent, change: TimelineChangeKind): TimelineChange {
  return { change, eventType: event.type, flightId: event.flightId, flightGlobalId: flightGlobalId(event.flightId), seq: event.seq, at: event.at };
}

@Resolver(() => TimelineChange)
export class TimelineChangesResolver {
  @Authorized(Scope.TimelineRead)
  @Subscription(() => TimelineChange, {
    subscribe: ({ args, context }) => timelineChanges(args as TimelineChangedArgs, context as GraphQLContext),
    description:
      'Entries entering, changing in or leaving a range of the timeline (the flights timelineEvents would answer), from the moment of subscribing, over WebSocket (graphql-ws) on /graphql. Needs scope timeline:read.',
  })
  timelineChanged(
    @Root() change: TimelineChange,
    @Args(() => DateRangeArgs) _range: DateRangeArgs,
    @Arg('timeZone', () => String, { nullable: true, description: 'IANA time zone in which offset-less start and end are read, as timelineEvents’ timeZone. Default: the service’s TIMEZONE.' })
    _timeZone: string | null,
    @Arg('resourceId', () => Int, { nullable: true, description: 'Only the flights of this resource (timeline row); all when omitted. A flight moved to or from it enters or leaves.' })
    _resourceId: number | null,
  ): TimelineChange {
    return change;
  }

  @FieldResolver(() => Flight, { nullable: true, description: 'The flight as it is now, read only when selected; null once it is deleted.' })
  flight(@Root() change: TimelineChange, @Ctx() ctx: GraphQLContext) {
    return ctx.services.flights.get(change.flightId);
  }
}
