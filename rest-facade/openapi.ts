/**
 * The OpenAPI 3.1 description of the facade as implemented. The facade's tests validate real
 * responses against these schemas, so the document cannot drift from the behaviour unnoticed.
 */
import { EXPORT_FORMAT_NAMES, EXPORT_FORMATS, type ExportFormat } from '../src/passengers/export/export-format';

const errorResponse = (description: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const wwwAuthenticate = {
  'WWW-Authenticate': {
    description: 'RFC 6750 challenge, e.g. Bearer realm="broker", error="invalid_token", error_description="…"',
    schema: { type: 'string' },
  },
};

/** The facade answers any other method on a known path with 405 and the methods it takes. */
const methodNotAllowed = errorResponse('Method not allowed on this path (the methods it takes are in Allow)', {
  Allow: { description: 'The methods of this path, e.g. GET, HEAD, POST', schema: { type: 'string' } },
});

/** Answers every data route can give: token problems and the per-client rate limit. */
const authErrors = {
  '401': errorResponse('No, malformed or invalid bearer token', wwwAuthenticate),
  '403': errorResponse('The token lacks the scope this route needs (named in WWW-Authenticate)', wwwAuthenticate),
  '429': errorResponse('More requests from this client in a minute than RATE_LIMIT_PER_MINUTE', {
    'Retry-After': { description: 'Seconds until the client may send again', schema: { type: 'string' } },
  }),
};

const rangeParameter = (name: 'start' | 'end') => ({
  name,
  in: 'query',
  required: true,
  description:
    name === 'start'
      ? 'First day (YYYY-MM-DD, included) or an ISO 8601 date-time. A date, or a date-time without offset, is read in the timeZone parameter’s zone, else the service TIMEZONE.'
      : 'Last day (YYYY-MM-DD, included) or an ISO 8601 date-time (excluded), read like start. At most 366 days after start.',
  schema: {
    type: 'string',
    examples: name === 'start' ? ['2026-05-01', '2026-05-01T00:00:00+02:00', '2026-05-01T00:00:00Z', '2026-05-01T00:00:00'] : ['2026-05-31', '2026-06-01T00:00:00'],
  },
});

/** FullCalendar's JSON feed parameters besides the range: the calendar's zone and a cache buster. */
const timeZoneParameter = (usedFor: 'entries' | 'ignored') => ({
  name: 'timeZone',
  in: 'query',
  required: false,
  description:
    usedFor === 'entries'
      ? 'IANA time zone name (e.g. Europe/Rome, or UTC) in which offset-less start and end are read and every entry’s start and end are shown. Default: the service TIMEZONE. An unknown zone is a 400.'
      : 'Accepted (FullCalendar sends it with refetchResourcesOnNavigate) and not used: resources do not depend on the zone.',
  schema: { type: 'string', examples: ['Europe/Rome', 'UTC'] },
});

const cacheBusterParameter = {
  name: '_',
  in: 'query',
  required: false,
  description: 'Cache buster sent by jQuery and FullCalendar; accepted and ignored.',
  schema: { type: 'string' },
};

const timelineOperation = (operationId: string, summary: string, order: string) => ({
  operationId,
  summary,
  description: `Flights whose time in the air overlaps the range, ${order}. Requires scope timeline:read.`,
  security: [{ bearer: ['timeline:read'] }],
  parameters: [rangeParameter('start'), rangeParameter('end'), timeZoneParameter('entries'), cacheBusterParameter],
  responses: {
    '200': {
      description: 'Timeline entries',
      content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/TimelineEntry' } } } },
    },
    '400': errorResponse('A missing, malformed or impossible start or end, start after end, a range over 366 days, an unknown timeZone, or an unknown or repeated parameter'),
    ...authErrors,
    '405': methodNotAllowed,
    '503': errorResponse('The database is unavailable'),
  },
});

const flightIdParameter = { name: 'flight_id', in: 'path', required: true, description: 'The flight id', schema: { type: 'integer', minimum: 1 } };

/** Types a paxlist part may declare; any other is read too (the bytes decide), these are the ones browsers and tools send. */
const PAXLIST_MEDIA_TYPES = [
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.oasis.opendocument.spreadsheet',
  'text/csv',
  'application/vnd.ms-excel',
  'application/octet-stream',
];

/** What each exported file is, for the media types of GET …/passenger. */
const EXPORT_SCHEMAS: Record<Exclude<ExportFormat, 'json'>, object> = {
  xlsx: { type: 'string', contentEncoding: 'binary', description: 'One sheet: the upload template’s headings, one passenger per row; uploading it gives the same records' },
  csv: { type: 'string', description: 'UTF-8 with a byte order mark, RFC 4180: the xlsx export’s headings and columns, dates YYYY-MM-DD' },
  paxlst: { type: 'string', description: 'A UN/EDIFACT PAXLST (D.05B, UNOA) for the flight: reporting party, flight and airports, each passenger’s name, sex, birth, nationality and travel document' },
  pdf: { type: 'string', contentEncoding: 'binary', description: 'A printable passenger manifest: flight, aircraft, operator, airports and local times, then one row per passenger; page numbers, list version, production time' },
};

const listETagHeader = { description: 'The list version, quoted, e.g. "3"', schema: { type: 'string' } };

export function buildOpenApiDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Broker flight timeline and passenger list interface',
      version: 'v0',
      // The service is proprietary (package.json: UNLICENSED); SPDX's LicenseRef- form names that.
      license: { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' },
      description:
        'The legacy REST facade of the broker flight gateway. Every route runs a named GraphQL operation of /graphql. Errors share one body: {"error": {"code", "message", "details"}}.',
    },
    security: [{ bearer: [] }],
    paths: {
      '/': {
        get: {
          operationId: 'getRouteIndex',
          summary: 'The routes of this facade',
          description: 'Every route with its method, the GraphQL operation it runs and the scope it needs, and the address of this document. No token needed.',
          security: [],
          responses: {
            '200': {
              description: 'The route index',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    additionalProperties: false,
                    required: ['name', 'version', 'openapi', 'contract', 'routes'],
                    properties: {
                      name: { type: 'string' },
                      version: { type: 'string', const: 'v0' },
                      openapi: { type: 'string', format: 'uri' },
                      contract: { type: 'string' },
                      routes: {
                        type: 'array',
                        items: {
                          type: 'object',
                          additionalProperties: false,
                          required: ['method', 'path', 'operation'],
                          properties: {
                            method: { type: 'string', enum: ['GET', 'POST'] },
                            path: { type: 'string' },
                            operation: { type: ['string', 'null'], description: 'The named GraphQL operation the route runs (null: served by the facade itself)' },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
            '405': methodNotAllowed,
          },
        },
      },
      '/calendar/timeline/event': { get: timelineOperation('getCalendarTimeline', 'Calendar timeline', 'ordered by departure, then flight id') },
      '/resource/timeline/event': { get: timelineOperation('getResourceTimeline', 'Resource timeline', 'ordered by resource id, then departure') },
      '/resource/timeline/resources': {
        get: {
          operationId: 'listTimelineResources',
          summary: 'Resources for a FullCalendar resource timeline',
          description: 'Every resource, with string ids (FullCalendar convention). Requires scope timeline:read.',
          security: [{ bearer: ['timeline:read'] }],
          parameters: [
            { ...rangeParameter('start'), required: false, description: 'Accepted (FullCalendar sends the visible range with refetchResourcesOnNavigate) and not used.' },
            { ...rangeParameter('end'), required: false, description: 'Accepted and not used, like start.' },
            timeZoneParameter('ignored'),
            cacheBusterParameter,
          ],
          responses: {
            '200': {
              description: 'Resources',
              content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/CalendarResource' } } } },
            },
            '400': errorResponse('An unexpected query parameter'),
            ...authErrors,
            '405': methodNotAllowed,
            '503': errorResponse('The database is unavailable'),
          },
        },
      },
      '/upload/{id}': {
        post: {
          operationId: 'uploadPassengerSpreadsheet',
          summary: 'Parse a passenger list spreadsheet',
          description:
            'Reads the passenger list in the multipart field paxlist: an .xlsx or .ods workbook, or a CSV file (UTF-8, UTF-16 or Windows-1252; comma, semicolon or tab), the format told from the bytes whatever type or name the part declares; the old .xls is refused with 415 saying how to convert it. The list is the first sheet with a recognisable header row (headings in English or Italian, any order) and answers the flight’s passenger records, one per data row, in row order. Stores nothing. Requires scope passengers:write. Ignored columns, hidden rows and columns, skipped totals rows, date columns read in an order the column did not prove, phone numbers read through the default region and a text encoding that had to be guessed are listed, URL-encoded, in the X-Sheet-Warnings header.',
          security: [{ bearer: ['passengers:write'] }],
          parameters: [
            { name: 'id', in: 'path', required: true, description: 'The flight id', schema: { type: 'integer', minimum: 1 } },
            {
              name: 'hiddenRows',
              in: 'query',
              required: false,
              description: 'Rows hidden by hand or by a filter: SKIP leaves them out (the default), IMPORT reads them as passengers; a warning names them either way. Any case.',
              schema: { type: 'string', enum: ['SKIP', 'IMPORT'], default: 'SKIP' },
            },
            {
              name: 'dateOrder',
              in: 'query',
              required: false,
              description: 'How text dates such as 05/06/1980 are read in a column whose own dates all read both ways: DMY (day first, 5 June) or MDY (month first, 6 May); any case. A column with a date that reads one way only (17/05/1980) is read in that order whatever this says. Default DMY.',
              schema: { type: 'string', enum: ['DMY', 'MDY'], default: 'DMY' },
            },
            {
              name: 'defaultPhoneRegion',
              in: 'query',
              required: false,
              description: 'ISO 3166-1 alpha-2 code of the country a phone number without a country code is read in when it is valid in none of the passenger’s nationality, issuing state and country of birth; each such number is a warning. Default: the deployment’s PASSENGER_DEFAULT_PHONE_REGION, unset unless configured (such a number is then a problem).',
              schema: { type: 'string', pattern: '^[A-Za-z]{2}$' },
            },
          ],
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: { type: 'object', required: ['paxlist'], properties: { paxlist: { type: 'string', contentEncoding: 'binary', description: 'The .xlsx, .ods or CSV file' } } },
                encoding: { paxlist: { contentType: PAXLIST_MEDIA_TYPES.join(', ') } },
              },
            },
          },
          responses: {
            '200': {
              description: 'The parsed records (id null, row_number from 1)',
              headers: { 'X-Sheet-Warnings': { description: 'URL-encoded remarks joined by " | ": ignored columns, date columns read in an order they did not prove, phone numbers read through the default region', schema: { type: 'string' } } },
              content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Passenger' } } } },
            },
            '400': errorResponse('Not multipart/form-data, no file in the paxlist field, or an unknown or malformed query parameter (hiddenRows, dateOrder, defaultPhoneRegion)'),
            ...authErrors,
            '404': errorResponse('No such flight'),
            '405': methodNotAllowed,
            '413': errorResponse('The file, its rows or its uncompressed parts exceed the configured limits'),
            '415': errorResponse('Not an .xlsx, .ods or CSV file (.xls, PDF, XML, binary data), or a damaged one'),
            '422': errorResponse('No header row, missing required columns, an empty list, too many columns, or invalid cells: details name row_number, sheet_row, column, value and message'),
            '503': errorResponse('The database is unavailable'),
          },
        },
      },
      '/upload/template.xlsx': {
        get: {
          operationId: 'getPassengerSpreadsheetTemplate',
          summary: 'The passenger list spreadsheet template',
          description: 'An .xlsx with the canonical headings, a frozen header row, validation lists and one example row. No token needed: it holds no data.',
          security: [],
          responses: {
            '200': { description: 'The template', content: { 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', contentEncoding: 'binary' } } } },
            '405': methodNotAllowed,
          },
        },
      },
      '/flight/{flight_id}/passenger': {
        get: {
          operationId: 'getPassengerList',
          summary: 'Read a flight’s passenger list',
          description:
            'The flight’s passenger records in list order, each as the push takes it in created (id is the record’s integer id within the list), and the list version as ETag. Send the ETag in If-Match with the next push to refuse concurrent changes (412), or in If-None-Match to be answered 304 while the list is unchanged. A flight without a list answers [] with ETag "0". The same list comes as a file for Accept (or ?format=) xlsx, csv, pdf, paxlst (see docs/rest-api.md, Passenger list exports); a file’s ETag names its format too ("3-xlsx"). Requires scope passengers:read.',
          security: [{ bearer: ['passengers:read'] }],
          parameters: [
            flightIdParameter,
            {
              name: 'format',
              in: 'query',
              required: false,
              description: 'The representation, whatever Accept says (so a link can ask for a file); without it Accept decides, JSON when absent or */*',
              schema: { type: 'string', enum: EXPORT_FORMAT_NAMES },
            },
            ...(['expires', 'sub', 'signature'] as const).map((name) => ({
              name,
              in: 'query' as const,
              required: false,
              description: `Part of a signed download link from GraphQL's passengerListDownloadUrl, which stands in for the bearer token (401 when changed or expired)`,
              schema: { type: 'string' },
            })),
            { name: 'If-None-Match', in: 'header', required: false, description: 'ETag of the list as last read, e.g. "3" (JSON) or "3-xlsx": 304 without a body while the list is at that version', schema: { type: 'string' } },
          ],
          responses: {
            '200': {
              description: 'The records (row_number from 1, in list order), as JSON or as a file of the chosen format',
              headers: {
                ETag: { description: 'The list version, quoted, with the format for a file: "3" (JSON), "3-xlsx", "3-csv", "3-pdf", "3-paxlst"', schema: { type: 'string' } },
                'Content-Disposition': { description: 'For a file: attachment; filename="flight-<id>-passengers-v<version>.<ext>"', schema: { type: 'string' } },
                Vary: { description: 'Accept', schema: { type: 'string' } },
              },
              content: {
                'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/StoredPassenger' } } },
                ...Object.fromEntries(
                  EXPORT_FORMAT_NAMES.filter((name) => name !== 'json').map((name) => [EXPORT_FORMATS[name].mediaType, { schema: EXPORT_SCHEMAS[name] }]),
                ),
              },
            },
            '304': { description: 'The list is still at the version If-None-Match names', headers: { ETag: listETagHeader } },
            '400': errorResponse('A flight id that is not a positive integer, an unknown format, or another query parameter'),
            ...authErrors,
            '404': errorResponse('No such flight'),
            '405': methodNotAllowed,
            '406': errorResponse('Accept names no representation offered (the message lists them)'),
            '413': errorResponse('The file would exceed the response size limit (RESPONSE_MAX_BYTES)'),
            '422': errorResponse('format=paxlst on a service without the PAXLST settings'),
            '503': errorResponse('The database is unavailable'),
          },
        },
        post: {
          operationId: 'pushPassengerChanges',
          summary: 'Push a passenger list change set',
          description:
            'Applies created, modified and deleted records to the flight’s passenger list in one atomic update, or nothing. Requires scope passengers:write. The response ETag is the list version; send it back in If-Match to refuse concurrent changes (412).',
          security: [{ bearer: ['passengers:write'] }],
          parameters: [
            flightIdParameter,
            { name: 'If-Match', in: 'header', required: false, description: 'ETag of the list as last read, e.g. "3"; * or absent: any version', schema: { type: 'string' } },
            { name: 'Idempotency-Key', in: 'header', required: false, description: 'Retries with the same key and body within 24 hours return the first answer; another body with the key is a 409', schema: { type: 'string', maxLength: 200 } },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/PassengerChanges' } } },
          },
          responses: {
            '200': {
              description: 'Applied (or a retry of an applied change set)',
              headers: { ETag: listETagHeader },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/PushResult' } } },
            },
            '400': errorResponse('Not a change set: missing groups, unknown members or wrong JSON types (every problem at once, each detail naming its member, e.g. created[0].is_carring_infant: expected true or false), or a bad If-Match or Idempotency-Key'),
            ...authErrors,
            '404': errorResponse('No such flight'),
            '405': methodNotAllowed,
            '409': errorResponse('A created id exists with other content, or the Idempotency-Key was used with another body'),
            '412': errorResponse('If-Match names a version that is no longer current'),
            '413': errorResponse('Body larger than JSON_MAX_BYTES'),
            '415': errorResponse('Content-Type is not application/json'),
            '422': errorResponse('Invalid records; details list each problem with group, index, id, field and message'),
            '503': errorResponse('The database is unavailable'),
          },
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'getOpenApiDocument',
          summary: 'This document',
          security: [],
          responses: { '200': { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } }, '405': methodNotAllowed },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'Scopes: timeline:read, passengers:read, passengers:write, flights:write (claim `scope` or `scp`).',
        },
      },
      schemas: {
        Airport: {
          type: 'object',
          additionalProperties: false,
          required: ['icao', 'iata', 'country', 'city'],
          properties: {
            icao: { type: 'string', pattern: '^[A-Z]{4}$' },
            iata: { type: 'string', pattern: '^[A-Z]{3}$' },
            country: { type: 'string', pattern: '^.+ \\([^()]*\\)$', description: 'Country name and parenthesised part, e.g. "Italy (IT)" or "Italy ()"' },
            city: { type: 'string' },
          },
        },
        TimelineEntry: {
          type: 'object',
          additionalProperties: false,
          required: ['resourceId', 'flight_id', 'flight_number', 'backgroundColor', 'textColor', 'borderColor', 'start', 'end', 'dep', 'arr', 'url', 'api_version', 'passengers'],
          properties: {
            resourceId: { type: 'integer' },
            flight_id: { type: 'integer' },
            flight_number: { type: 'string' },
            backgroundColor: { type: 'string', description: 'CSS colour name' },
            textColor: { type: 'string', description: 'CSS colour name' },
            borderColor: { type: 'string', description: 'CSS colour name' },
            start: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}$', description: 'Departure, wall-clock time in the response’s one zone: the timeZone parameter, else the service TIMEZONE' },
            end: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}$', description: 'Arrival, wall-clock time in the same zone as start' },
            dep: { $ref: '#/components/schemas/Airport' },
            arr: { $ref: '#/components/schemas/Airport' },
            url: { type: 'string', description: 'Host name of the service instance, no scheme' },
            api_version: { type: 'string', const: 'v0' },
            passengers: { type: 'integer', minimum: 0 },
          },
        },
        CalendarResource: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'title', 'eventBackgroundColor', 'eventBorderColor', 'eventTextColor'],
          properties: {
            id: { type: 'string' },
            title: { type: 'string' },
            eventBackgroundColor: { type: 'string' },
            eventBorderColor: { type: 'string' },
            eventTextColor: { type: 'string' },
          },
        },
        Passenger: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'idvolo', 'surname', 'name', 'luogonascita', 'nazionalita', 'typedoc', 'numberdoc', 'date_born', 'scadenza', 'issuingstate', 'email', 'phone', 'is_carring_infant', 'gender', 'parent_id', 'row_number_parent_id', 'row_number'],
          properties: {
            id: { type: ['integer', 'null'] },
            idvolo: { type: 'integer' },
            surname: { type: 'string', description: 'Upper case' },
            name: { type: 'string', description: 'Upper case' },
            luogonascita: { type: 'string', pattern: '^[A-Z]{2}$', description: 'Country of birth, ISO 3166-1 alpha-2' },
            nazionalita: { type: 'string', pattern: '^[A-Z]{2}$' },
            typedoc: { type: 'string', enum: ['P', 'I'] },
            numberdoc: { type: 'string' },
            date_born: { type: 'string', format: 'date' },
            scadenza: { type: 'string', format: 'date' },
            issuingstate: { type: 'string', pattern: '^[A-Z]{2}$' },
            email: { type: ['string', 'null'] },
            phone: { type: ['string', 'null'], pattern: '^\\+[1-9]\\d{6,14}$' },
            is_carring_infant: { type: 'boolean' },
            gender: { type: 'string', enum: ['M', 'F', 'I'] },
            parent_id: { type: ['integer', 'null'] },
            row_number_parent_id: { type: ['integer', 'null'] },
            row_number: { type: 'integer', minimum: 1 },
          },
        },
        StoredPassenger: {
          description: 'A stored Passenger record: its id is the integer the client chose when it created the record.',
          allOf: [{ $ref: '#/components/schemas/Passenger' }, { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }],
        },
        PassengerInput: {
          type: 'object',
          additionalProperties: false,
          description: 'A Passenger record; in created, id is required and chosen by the client; in modified, id plus the fields to change. idvolo, when present, must equal flight_id. Values are normalised as in the upload (countries by name or code, dates in several formats).',
          properties: {
            id: { type: 'integer' },
            idvolo: { type: ['integer', 'null'] },
            surname: { type: ['string', 'null'] },
            name: { type: ['string', 'null'] },
            luogonascita: { type: ['string', 'null'] },
            nazionalita: { type: ['string', 'null'] },
            typedoc: { type: ['string', 'null'] },
            numberdoc: { type: ['string', 'null'] },
            date_born: { type: ['string', 'null'] },
            scadenza: { type: ['string', 'null'] },
            issuingstate: { type: ['string', 'null'] },
            email: { type: ['string', 'null'] },
            phone: { type: ['string', 'null'] },
            is_carring_infant: { type: ['boolean', 'null'] },
            gender: { type: ['string', 'null'] },
            parent_id: { type: ['integer', 'null'] },
            row_number_parent_id: { type: ['integer', 'null'], description: 'In created: the parent’s row_number in the same push (as the upload returns it)' },
            row_number: { type: ['integer', 'null'] },
          },
        },
        PassengerChanges: {
          type: 'object',
          additionalProperties: false,
          required: ['created', 'modified', 'deleted'],
          properties: {
            created: { type: 'array', items: { $ref: '#/components/schemas/PassengerInput' } },
            modified: { type: 'array', items: { $ref: '#/components/schemas/PassengerInput' } },
            deleted: { type: 'array', items: { oneOf: [{ type: 'integer' }, { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }] } },
          },
        },
        PushResult: {
          type: 'object',
          additionalProperties: false,
          required: ['status', 'flight_id', 'version', 'created', 'modified', 'deleted', 'passengers', 'warnings'],
          properties: {
            status: { const: 'ok' },
            flight_id: { type: 'integer' },
            version: { type: 'integer', minimum: 0 },
            created: { type: 'integer', minimum: 0 },
            modified: { type: 'integer', minimum: 0 },
            deleted: { type: 'integer', minimum: 0 },
            passengers: { type: 'integer', minimum: 0, description: 'Records in the list after the push' },
            warnings: {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['code', 'id', 'message'],
                properties: { code: { type: 'string' }, id: { type: ['integer', 'null'] }, message: { type: 'string' } },
              },
            },
          },
        },
        Error: {
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
        },
      },
    },
  };
}
