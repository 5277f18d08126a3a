import type { RouteDoc } from './route';

/*
 * The prose of the upload routes' OpenAPI operations (what only words can say), beside
 * upload.routes.ts: the parameters' schemas come from the upload operation's variables, the answer's
 * from its selection and the field declaration (openapi.ts, openapi-schemas.ts).
 */

/** Types a paxlist part may declare; any other is read too (the bytes decide), these are the ones browsers and tools send. */
const PAXLIST_MEDIA_TYPES = [
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.oasis.opendocument.spreadsheet',
  'text/csv',
  'application/vnd.ms-excel',
  'application/octet-stream',
];

export const uploadDoc: RouteDoc = {
  operationId: 'uploadPassengerSpreadsheet',
  summary: 'Parse a passenger list spreadsheet',
  description:
    'Reads the passenger list in the multipart field paxlist: an .xlsx or .ods workbook, or a CSV file (UTF-8, UTF-16 or Windows-1252; comma, semicolon or tab), the format told from the bytes whatever type or name the part declares; the old .xls is refused with 415 saying how to convert it. The list is the first sheet with a recognisable header row (headings in English or Italian, any order) and answers the flight’s passenger records, one per data row, in row order. Stores nothing. Requires scope passengers:write. Ignored columns, hidden rows and columns, skipped totals rows, date columns read in an order the column did not prove, phone numbers read through the default region and a text encoding that had to be guessed are listed, URL-encoded, in the X-Sheet-Warnings header.',
  scope: 'passengers:write',
  pathParameters: { id: 'The flight id' },
  parameters: [
    {
      name: 'hiddenRows', in: 'query', variable: 'hiddenRows', schema: { default: 'SKIP' },
      description: 'Rows hidden by hand or by a filter: SKIP leaves them out (the default), IMPORT reads them as passengers; a warning names them either way. Any case.',
    },
    {
      name: 'dateOrder', in: 'query', variable: 'dateOrder', schema: { default: 'DMY' },
      description: 'How text dates such as 05/06/1980 are read in a column whose own dates all read both ways: DMY (day first, 5 June) or MDY (month first, 6 May); any case. A column with a date that reads one way only (17/05/1980) is read in that order whatever this says. Default DMY.',
    },
    {
      name: 'defaultPhoneRegion', in: 'query', variable: 'defaultPhoneRegion', schema: { pattern: '^[A-Za-z]{2}$' },
      description: 'ISO 3166-1 alpha-2 code of the country a phone number without a country code is read in when it is valid in none of the passenger’s nationality, issuing state and country of birth; each such number is a warning. Default: the deployment’s PASSENGER_DEFAULT_PHONE_REGION, unset unless configured (such a number is then a problem).',
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
  ok: {
    description: 'The parsed records (id null, row_number from 1)',
    headers: { 'X-Sheet-Warnings': { description: 'URL-encoded remarks joined by " | ": ignored columns, date columns read in an order they did not prove, phone numbers read through the default region', schema: { type: 'string' } } },
    content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Passenger' } } } },
  },
  responses: {
    '400': 'A flight id that is not a positive integer, an unknown, repeated or malformed query parameter (hiddenRows, dateOrder, defaultPhoneRegion), each answered before the body is read; not multipart/form-data; or no file in the paxlist field',
    '404': 'No such flight',
    '413': 'The file, its rows or its uncompressed parts exceed the configured limits',
    '415': 'Not an .xlsx, .ods or CSV file (.xls, PDF, XML, binary data), or a damaged one',
    '422': 'No header row, missing required columns, an empty list, too many columns, or invalid cells: details name row_number, sheet_row, column, value and message',
  },
};

/** GET /upload/template.xlsx, served by the facade itself (templateHandler). */
export const templateDoc: RouteDoc = {
  operationId: 'getPassengerSpreadsheetTemplate',
  summary: 'The passenger list spreadsheet template',
  description: 'An .xlsx with the canonical headings, a frozen header row, validation lists and one example row. No token needed: it holds no data.',
  scope: null,
  ok: { description: 'The template', content: { 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', contentEncoding: 'binary' } } } },
  responses: {},
};
