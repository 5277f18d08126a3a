import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, isEnumType } from 'graphql';
import request from 'supertest';
import { startTestApp, type TestApp } from '../helpers/test-app';

/** A passenger record's members, in the order the v0 contract (docs/contract/broker-interface-v0.md) gives them. */
const CONTRACT_RECORD = ['id', 'idvolo', 'surname', 'name', 'luogonascita', 'nazionalita', 'typedoc', 'numberdoc', 'date_born', 'scadenza', 'issuingstate', 'email', 'phone', 'is_carring_infant', 'gender', 'parent_id', 'row_number_parent_id', 'row_number'];
/** A timeline entry's members, in the contract's order. */
const CONTRACT_ENTRY = ['resourceId', 'flight_id', 'flight_number', 'backgroundColor', 'textColor', 'borderColor', 'start', 'end', 'dep', 'arr', 'url', 'api_version', 'passengers'];

describe('the OpenAPI document derived from the route table, the operations and the field declaration', () => {
  let testApp: TestApp;
  let openapi: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const sdl = buildSchema(readFileSync(join(__dirname, '../../schema/schema.graphql'), 'utf8'));
  const enumValues = (name: string) => {
    const type = sdl.getType(name);
    return isEnumType(type) ? type.getValues().map((value) => value.name) : [];
  };

  beforeAll(async () => {
    testApp = await startTestApp('openapi_derived');
    openapi = (await request(testApp.app).get('/api/broker/v0/openapi.json').expect(200)).body;
  });
  afterAll(() => testApp.close());

  it('describes upload and stored records with the contract’s members in its order, refined by the declaration', () => {
    const { Passenger, StoredPassenger } = openapi.components.schemas;
    for (const record of [Passenger, StoredPassenger]) {
      expect(Object.keys(record.properties)).toEqual(CONTRACT_RECORD);
      expect(record.required).toEqual(CONTRACT_RECORD);
      expect(record.additionalProperties).toBe(false);
      expect(record.properties.luogonascita).toMatchObject({ type: 'string', pattern: '^[A-Z]{2}$' });
      expect(record.properties.date_born).toMatchObject({ type: 'string', format: 'date' });
      expect(record.properties.typedoc).toMatchObject({ type: 'string', enum: ['P', 'I'] });
      expect(record.properties.email.type).toEqual(['string', 'null']);
      expect(record.properties.is_carring_infant.type).toBe('boolean');
    }
    // An upload's record has no number yet; a stored one always has.
    expect(Passenger.properties.id.type).toEqual(['integer', 'null']);
    expect(StoredPassenger.properties.id.type).toBe('integer');
  });

  it('takes a push record’s members from the GraphQL input type, each optional', () => {
    const input = openapi.components.schemas.PassengerInput;
    expect(Object.keys(input.properties).sort()).toEqual([...CONTRACT_RECORD].sort());
    expect(input.required).toBeUndefined();
    expect(input.properties.surname.type).toEqual(['string', 'null']);
  });

  it('names a timeline entry’s members as the operation’s aliases do, in the contract’s order', () => {
    const entry = openapi.components.schemas.TimelineEntry;
    expect(Object.keys(entry.properties)).toEqual(CONTRACT_ENTRY);
    expect(entry.required).toEqual(CONTRACT_ENTRY);
    expect(entry.properties.flight_id.type).toBe('integer');
    expect(entry.properties.dep).toEqual({ $ref: '#/components/schemas/Airport' });
  });

  it('gives the upload’s query parameters the codes of the GraphQL enums its operation takes', () => {
    const parameters = openapi.paths['/upload/{id}'].post.parameters as { name: string; schema: { enum?: string[] } }[];
    const schemaOf = (name: string) => parameters.find((parameter) => parameter.name === name)?.schema;
    expect(schemaOf('hiddenRows')?.enum?.sort()).toEqual(enumValues('HiddenRows').sort());
    expect(schemaOf('dateOrder')?.enum?.sort()).toEqual(enumValues('DateOrder').sort());
    expect(enumValues('DateOrder').length).toBeGreaterThan(1);
  });

  it('documents the path parameter of each route from its path', () => {
    expect(openapi.paths['/flight/{flight_id}/passenger'].get.parameters[0]).toMatchObject({ name: 'flight_id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } });
    expect(openapi.paths['/upload/{id}'].post.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true });
  });
});
