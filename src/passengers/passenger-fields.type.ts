import { Field, InputType, Int, ObjectType } from 'type-graphql';
import {
  PASSENGER_RECORD_FIELDS,
  type PassengerFieldInputs,
  type PassengerFieldKind,
  type PassengerFieldValues,
  type PassengerRecordFieldName,
} from './passenger.fields';

/*
 * type-graphql classes built from the field declaration (passenger.fields.ts), in the manner of
 * type-graphql's `examples/mixin-classes/`: a mixin extends a base class (which may carry fields of
 * its own, such as a renamed `id`, so they keep their place first) with the declared fields, each
 * registered exactly as an `@Field` on the class would be. The mixin classes are never returned by
 * a field, so they stay out of the schema; the classes that extend them are the schema's types.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AbstractClass<T = object> = abstract new (...args: any[]) => T;

const GRAPHQL_TYPES: Record<PassengerFieldKind, NonNullable<Parameters<typeof Field>[0]>> = { string: () => String, boolean: () => Boolean, int: () => Int };

function declareFields(target: AbstractClass, names: readonly PassengerRecordFieldName[], face: 'output' | 'input'): void {
  for (const name of names) {
    const field = PASSENGER_RECORD_FIELDS[name];
    // Every field of a push is optional (absent keeps the stored value), so all are nullable there.
    const options = face === 'output' ? { nullable: field.nullable, description: field.description } : { nullable: true, description: field.input };
    Field(GRAPHQL_TYPES[field.kind], options)(target.prototype as object, name);
  }
}

/** `Base` with the named fields as an object type shows them: stored values, the record's descriptions. */
export function withPassengerFields<B extends AbstractClass, K extends PassengerRecordFieldName>(Base: B, names: readonly K[]) {
  @ObjectType(`${Base.name}Fields`, { description: 'The v0 interface’s fields of a passenger record.' })
  abstract class WithPassengerFields extends Base {}
  declareFields(WithPassengerFields, names, 'output');
  return WithPassengerFields as unknown as B & AbstractClass<PassengerFieldValues<K>>;
}

/** `Base` with the named fields as a push takes them: each optional and nullable, the input descriptions. */
export function withPassengerInputFields<B extends AbstractClass, K extends PassengerRecordFieldName>(Base: B, names: readonly K[]) {
  @InputType(`${Base.name}Fields`, { description: 'The v0 interface’s fields of a passenger record, as a push takes them.' })
  abstract class WithPassengerInputFields extends Base {}
  declareFields(WithPassengerInputFields, names, 'input');
  return WithPassengerInputFields as unknown as B & AbstractClass<PassengerFieldInputs<K>>;
}
