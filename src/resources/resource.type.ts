import { Field, InputType, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A timeline row, typically one aircraft, with the default colours of its entries.' })
export class Resource {
  @Field(() => Int, { description: 'The resource id, unique among resources (FullCalendar’s resourceId).' })
  id: number;

  @Field({ description: 'Name shown on the timeline row, e.g. the aircraft type.' })
  title: string;

  @Field({ description: 'Aircraft registration, e.g. I-FLYB.' })
  registration: string;

  @Field({ description: 'CSS colour name.' })
  backgroundColor: string;

  @Field({ description: 'CSS colour name.' })
  textColor: string;

  @Field({ description: 'CSS colour name.' })
  borderColor: string;
}

@InputType({ description: 'A resource to create (no id: the next free id) or to create or replace with the given id.' })
export class ResourceInput {
  @Field(() => Int, { nullable: true, description: 'Omit to create a resource with the next free id.' })
  id?: number | null;

  @Field({ description: 'Name shown on the timeline row.' })
  title: string;

  @Field({ description: 'Aircraft registration (stored upper case).' })
  registration: string;

  @Field({ description: 'Default background colour of its entries, a CSS colour name.' })
  backgroundColor: string;

  @Field({ description: 'Default text colour of its entries, a CSS colour name.' })
  textColor: string;

  @Field({ description: 'Default border colour of its entries, a CSS colour name.' })
  borderColor: string;
}
