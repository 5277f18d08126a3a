import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { Node } from '../graphql-kit/node';

@ObjectType({ description: 'A timeline row, typically one aircraft, with the default colours of its entries.', implements: Node })
export class Resource {
  // The stored number: ResourceResolver serves it as `resourceId` and derives the global `id`.
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
