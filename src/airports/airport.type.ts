import { Field, InputType, ObjectType } from 'type-graphql';

@ObjectType({ description: 'An airport, with the time zone its local times are shown in.' })
export class Airport {
  @Field({ description: 'Four-letter ICAO code, e.g. LIRF.' })
  icao: string;

  @Field({ description: 'Three-letter IATA code, e.g. FCO.' })
  iata: string;

  @Field({ description: 'City the airport serves, e.g. Rome.' })
  city: string;

  @Field({ description: 'Country name, e.g. Italy.' })
  country: string;

  @Field({ description: 'The parenthesised part shown after the country name on the timeline (e.g. IT); may be empty.' })
  countryTag: string;

  @Field({ description: 'IANA time zone, e.g. Europe/Rome.' })
  timezone: string;
}

@InputType({ description: 'An airport to create, or to replace when its ICAO code exists.' })
export class AirportInput {
  @Field({ description: 'Four-letter ICAO code: the airport’s key.' })
  icao: string;

  @Field({ description: 'Three-letter IATA code.' })
  iata: string;

  @Field({ description: 'City the airport serves.' })
  city: string;

  @Field({ description: 'Country name.' })
  country: string;

  @Field({ defaultValue: '', description: 'Shown in parentheses after the country on the timeline; may be empty.' })
  countryTag: string;

  @Field({ description: 'IANA time zone, e.g. Europe/Rome.' })
  timezone: string;
}
