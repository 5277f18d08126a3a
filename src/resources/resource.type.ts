import { Field, InputType, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A timeline row, typically one aircraft, with the default colours of its entries.' })
export class Resource {
  @Field(() => Int)
  id: number;

  @Field()
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

  @Field()
  title: string;

  @Field()
  registration: string;

  @Field()
  backgroundColor: string;

  @Field()
  textColor: string;

  @Field()
  borderColor: string;
}
