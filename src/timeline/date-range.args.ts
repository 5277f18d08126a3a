import { ArgsType, Field } from 'type-graphql';

@ArgsType()
export class DateRangeArgs {
  @Field({ description: 'YYYY-MM-DD (a day in the service time zone, included) or an ISO 8601 date-time with offset.' })
  start: string;

  @Field({ description: 'YYYY-MM-DD (included) or an ISO 8601 date-time with offset (excluded).' })
  end: string;
}
