/**
 * The OpenAPI components: the bodies the routes answer, derived from the operations they run
 * (openapi-derive.ts) with what GraphQL cannot say laid over them, and the few bodies the facade
 * shapes itself (the push's change set, FullCalendar's resources, the error body).
 */
import type { GraphQLSchema } from 'graphql';
import { PassengerListDocument, PushPassengerListDocument, TimelineLegacyEventsDocument, UploadPassengerListDocument } from '../src/graphql/generated/operations';
import { inputObjectSchema, operationResultSchema, passengerRefinements, refineProperties, type JsonSchema } from './openapi-derive';

const WALL_CLOCK = '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}$';
const CSS_COLOUR = { description: 'CSS colour name' };
const COUNT = { minimum: 0 };

/** The timeline routes' entries: TimelineLegacyEvents's selection (its aliases are the contract's names). */
function timelineSchemas(schema: GraphQLSchema): Record<string, JsonSchema> {
  const entry = operationResultSchema(schema, TimelineLegacyEventsDocument, ['timelineEvents']);
  const airport = operationResultSchema(schema, TimelineLegacyEventsDocument, ['timelineEvents', 'dep']);
  return {
    // An airport the flight names but the airports collection lacks is shown as its ICAO code
    // with an empty IATA code, city and country name: {icao, iata: '', country: ' ()', city: ''}
    // (src/timeline/timeline.service.ts).
    Airport: refineProperties(airport, {
      icao: { pattern: '^[A-Z]{4}$' },
      iata: { pattern: '^([A-Z]{3})?$' },
      country: { pattern: '^.* \\([^()]*\\)$', description: 'Country name, a space and the parenthesised part, e.g. "Italy (IT)" or "Italy ()"; " ()" when the airport is unknown' },
    }),
    TimelineEntry: refineProperties(entry, {
      backgroundColor: CSS_COLOUR,
      textColor: CSS_COLOUR,
      borderColor: CSS_COLOUR,
      start: { pattern: WALL_CLOCK, description: 'Departure, wall-clock time in the response’s one zone: the timeZone parameter, else the service TIMEZONE' },
      end: { pattern: WALL_CLOCK, description: 'Arrival, wall-clock time in the same zone as start' },
      dep: { $ref: '#/components/schemas/Airport' },
      arr: { $ref: '#/components/schemas/Airport' },
      url: { description: 'Host name of the service instance, no scheme' },
      api_version: { const: 'v0' },
      passengers: COUNT,
    }),
    // Reshaped by the resources route's toResponse (FullCalendar's names, string ids), so written here.
    CalendarResource: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'title', 'eventBackgroundColor', 'eventBorderColor', 'eventTextColor'],
      properties: { id: { type: 'string' }, title: { type: 'string' }, eventBackgroundColor: { type: 'string' }, eventBorderColor: { type: 'string' }, eventTextColor: { type: 'string' } },
    },
  };
}

/** A record as an operation answers it, refined by the field declaration. */
function passengerRecord(schema: GraphQLSchema, record: JsonSchema, description?: string): JsonSchema {
  const refined = refineProperties(record, passengerRefinements(record, 'stored'));
  return description ? { description, ...refined } : refined;
}

/** The passenger routes' bodies: records from the upload and list operations, the push's input and result. */
function passengerSchemas(schema: GraphQLSchema): Record<string, JsonSchema> {
  const input = inputObjectSchema(schema, 'PassengerInput');
  return {
    Passenger: passengerRecord(schema, operationResultSchema(schema, UploadPassengerListDocument, ['uploadPassengerList'])),
    StoredPassenger: refineProperties(
      passengerRecord(
        schema,
        operationResultSchema(schema, PassengerListDocument, ['passengerList', 'passengers']),
        'A stored Passenger record: its id is the integer the client chose when it created the record.',
      ),
      {
        row_number_parent_id: {
          description: 'Always null in a stored record, on purpose: its parent is parent_id (the parent’s id), and the record reads exactly as the push takes it, so pushing it back changes nothing (docs/rest-api.md, "Read a list back").',
        },
      },
    ),
    PassengerInput: {
      description:
        'A Passenger record; in created, id is required and chosen by the client; in modified, id plus the fields to change. idvolo, when present, must equal flight_id. Values are normalised as in the upload (countries by name or code, dates in several formats).',
      ...refineProperties(input, {
        ...passengerRefinements(input, 'input'),
        id: { type: 'integer', description: 'In created: a new integer of your choice, unique within the flight; in modified: the record to change.' },
        idvolo: { description: 'The flight id; when present it must equal flight_id.' },
      }),
    },
    // The REST body as readChanges (passengers.routes.ts) takes it: `deleted` holds ids or {id} objects.
    PassengerChanges: {
      type: 'object',
      additionalProperties: false,
      required: ['created', 'modified', 'deleted'],
      properties: {
        created: { type: 'array', items: { $ref: '#/components/schemas/PassengerInput' } },
        modified: { type: 'array', items: { $ref: '#/components/schemas/PassengerInput' } },
        deleted: { type: 'array', items: { oneOf: [{ type: 'integer' }, { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { type: 'integer' } } }] } },
      },
    },
    PushResult: refineProperties(operationResultSchema(schema, PushPassengerListDocument, ['pushPassengerList']), {
      status: { const: 'ok' },
      version: COUNT,
      created: COUNT,
      modified: COUNT,
      deleted: COUNT,
      passengers: COUNT,
    }),
  };
}

/** The one error body of every route (src/errors.ts, rest-facade/errors.ts). */
const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['code', 'message', 'details'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        details: { type: 'array', items: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } } },
      },
    },
  },
};

export function componentSchemas(schema: GraphQLSchema): Record<string, JsonSchema> {
  return { ...timelineSchemas(schema), ...passengerSchemas(schema), Error: ERROR_SCHEMA };
}
