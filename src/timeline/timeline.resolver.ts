import { Arg, Args, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { Scope } from '../auth';
import type { GraphQLContext } from '../context';
import { DateRangeArgs } from './date-range.args';
import { parseDateRange } from './date-range';
import { TimelineEvent, TimelineView } from './timeline-event.type';
import { dateRangeListComplexity } from '../graphql/complexity';

@Resolver(() => TimelineEvent)
export class TimelineResolver {
  @Authorized(Scope.TimelineRead)
  @Query(() => [TimelineEvent], { complexity: dateRangeListComplexity, description: 'Flights whose time in the air overlaps the range, as legacy timeline entries.' })
  timelineEvents(
    @Arg('view', () => TimelineView) view: TimelineView,
    @Args(() => DateRangeArgs) { start, end }: DateRangeArgs,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.timeline.events(view, parseDateRange(start, end, ctx.config.timezone));
  }
}
