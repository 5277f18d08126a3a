import 'reflect-metadata';
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, isSpecifiedScalarType, isIntrospectionType, type GraphQLSchema } from 'graphql';
import { gatewaySchema } from '../../src/graphql/schema';

/**
 * Every type, field, argument, input field and enum value the schema shows in Sandbox and GraphiQL
 * explains itself (graphql-schema-linter's *-have-descriptions rules, without the tool).
 */
function undescribed(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  const check = (where: string, description: string | null | undefined) => {
    if (!description?.trim()) missing.push(where);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    check(type.name, type.description);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        check(`${type.name}.${field.name}`, field.description);
        for (const arg of field.args) check(`${type.name}.${field.name}(${arg.name})`, arg.description);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) check(`${type.name}.${field.name}`, field.description);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) check(`${type.name}.${value.name}`, value.description);
    }
  }
  return missing;
}

describe('the GraphQL schema documents itself', () => {
  it('has a description on every type, field, argument, input field and enum value', async () => {
    expect(undescribed(await gatewaySchema())).toEqual([]);
  });

  it('names the flight `flightId` wherever a GraphQL type carries it (the REST push aliases it to flight_id)', async () => {
    const schema = await gatewaySchema();
    const snakeFlightIds = Object.values(schema.getTypeMap())
      .filter((type) => isObjectType(type) && !isIntrospectionType(type))
      .flatMap((type) => Object.keys((type as { getFields(): object }).getFields()).filter((name) => name === 'flight_id').map((name) => `${type.name}.${name}`));
    expect(snakeFlightIds).toEqual([]);
    expect(Object.keys((schema.getType('PassengerListPushResult') as { getFields(): object }).getFields())).toContain('flightId');
  });
});
