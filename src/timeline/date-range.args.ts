import { ArgsType, Field } from 'type-graphql';

@ArgsType()
export class DateRangeArgs {
  @Field({
    description:
      'First day, YYYY-MM-DD (included), or an ISO 8601 date-time. A date, or a date-time without an offset, is read in the request’s time zone (timelineEvents’ timeZone argument, else the service’s TIMEZONE).',
  })
  start: string;

  @Field({
    description: 'Last day, YYYY-MM-DD (included), or an ISO 8601 date-time (excluded), read like start. At most 366 days after start.',
  })
  end: string;
}
