import type { Request, RequestHandler } from 'express';
import {
  getNamedType,
  getNullableType,
  isInputObjectType,
  isInputType,
  isListType,
  Kind,
  typeFromAST,
  type DocumentNode,
  type GraphQLInputType,
  type OperationDefinitionNode,
} from 'graphql';
import type { Config } from '../src/config';
import { AppError, badRequest, ErrorCode, MAX_ERROR_DETAILS, unsupportedMediaType, type ErrorDetail } from '../src/errors';
import { PassengerListDocument, PushPassengerListDocument, type PassengerRecordFragment } from '../src/graphql/generated/operations';
import { gatewaySchema } from '../src/graphql/schema';
import { EXPORT_FORMAT_NAMES, EXPORT_FORMATS, type ExportFormat } from '../src/passengers/export/export-format';
import type { PassengerFieldWireValues, PassengerRecordFieldName } from '../src/passengers/passenger.fields';
import { boundedJsonBody, hasBody } from '../src/http/json-body';
import { clientGone } from '../src/shared/read-stream';
import { chooseExportFormat, exportETag, exportRepresentation, exportTooLarge, needsFlight, signedLinkPrincipal } from './passenger-export';
import { readIfMatch } from './conditional';
import { formatPath, inputShapeProblems, type ShapeProblem } from './input-shape';
import { readIdParameter, readQueryParameters } from './query';
import { defineRoute, type RouteDoc } from './route';

const GROUPS = ['created', 'modified', 'deleted'] as const;

/** A list version as its ETag writes it: "0", "3", never "03". */
const VERSION_TAG = /^(?:0|[1-9]\d{0,8})$/;

/**
 * The versions a push's If-Match allows, for the operation's expectedVersions: none pinned (null)
 * without the header or with `*` (any list, one without records at version 0 included, as the
 * read answers it with `[]` and "0"); else the versions of its strong tags, so that `"1", "3"`
 * passes at version 1 or 3. Weak tags (`W/"3"`) never match (If-Match compares strongly), and
 * neither does a strong tag that is not a list version ("3-xlsx"): a list of those allows none (412).
 */
export function ifMatchVersions(req: Request): number[] | null {
  const condition = readIfMatch(req);
  if (condition === undefined || condition === '*') return null;
  return [...new Set(condition.filter((tag) => !tag.weak && VERSION_TAG.test(tag.opaque)).map((tag) => Number(tag.opaque)))];
}

/** A push's 412 whose If-Match held weak tags says why they did not match. */
function weakTagsNote(error: AppError, req: Request): AppError {
  if (error.code !== ErrorCode.PRECONDITION_FAILED) return error;
  const condition = readIfMatch(req);
  if (condition === undefined || condition === '*' || !condition.some((tag) => tag.weak)) return error;
  return new AppError(error.code, `${error.message}; a weak ETag (W/"…") never matches: If-Match compares ETags strongly`, { details: error.details, headers: error.headers });
}

/** The input type a push operation's variable takes (`$changes: PassengerListChangesInput!`), from the schema. */
async function variableInputType(operation: DocumentNode, variable: string): Promise<GraphQLInputType> {
  const schema = await gatewaySchema();
  const definition = operation.definitions.find((node): node is OperationDefinitionNode => node.kind === Kind.OPERATION_DEFINITION);
  const typeNode = definition?.variableDefinitions?.find((node) => node.variable.name.value === variable)?.type;
  const type = typeNode && typeFromAST(schema, typeNode);
  if (!type || !isInputType(type)) throw new Error(`operation has no input variable $${variable}`);
  return type;
}

/** The record types of `created` and `modified`, read once from the schema (the one list of members and types). */
let recordTypes: Promise<Record<'created' | 'modified', GraphQLInputType>> | undefined;
function pushRecordTypes() {
  recordTypes ??= variableInputType(PushPassengerListDocument, 'changes').then((changes) => {
    const named = getNamedType(changes);
    const itemType = (group: 'created' | 'modified') => {
      const list = isInputObjectType(named) ? named.getFields()[group] && getNullableType(named.getFields()[group].type) : undefined;
      if (!list || !isListType(list)) throw new Error(`${named.name}.${group} is not a list`);
      return list.ofType as GraphQLInputType;
    };
    return { created: itemType('created'), modified: itemType('modified') };
  });
  return recordTypes;
}

/** A shape problem of a record as a detail that reads like the push's 422 details (group, index, id, field). */
function toDetail(problem: ShapeProblem, body: Record<string, unknown>): ErrorDetail {
  const [group, index, field] = problem.path;
  const record = typeof index === 'number' ? (body[group as string] as unknown[])[index] : undefined;
  const id = typeof record === 'object' && record !== null ? (record as { id?: unknown }).id : undefined;
  return {
    group,
    index,
    id: typeof id === 'number' && Number.isInteger(id) ? id : null,
    ...(field !== undefined ? { field: String(field) } : {}),
    message: `${formatPath(problem.path)}: ${problem.expected}`,
    ...(problem.value !== undefined ? { value: problem.value } : {}),
  };
}

/**
 * The push body, judged in the contract's terms before it becomes GraphQL variables: an object
 * with the three arrays, `created` and `modified` holding passenger records whose members have the
 * JSON types the contract gives, `deleted` holding ids or `{id}` objects. Every problem is reported
 * at once (400), each naming its member (`created[0].is_carring_infant: expected true or false`).
 * A group longer than `maxItems` is refused from its length (413), before any item is looked at.
 */
async function readChanges(body: unknown, maxItems: number) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('The body must be a JSON object with the arrays created, modified and deleted', [{ field: 'body', message: 'expected {"created": [], "modified": [], "deleted": []}' }]);
  }
  const record = body as Record<string, unknown>;
  const groups = GROUPS.filter((group) => Array.isArray(record[group]));
  const oversized = groups.filter((group) => (record[group] as unknown[]).length > maxItems);
  if (oversized.length) {
    const sizes = oversized.map((group) => `${group} holds ${(record[group] as unknown[]).length} items`).join(', ');
    throw new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `${sizes}: at most ${maxItems} records per group in one push; split the change set`, {
      details: oversized.map((group) => ({ field: group, message: `at most ${maxItems} items`, limit: maxItems })),
    });
  }

  const problems: ErrorDetail[] = [];
  for (const group of GROUPS) {
    if (!groups.includes(group)) problems.push({ field: group, message: `${group} must be present and be an array (it may be empty)` });
  }
  for (const key of Object.keys(record)) {
    if (!(GROUPS as readonly string[]).includes(key)) problems.push({ field: key, message: `unknown member "${key}": the body holds only created, modified and deleted` });
  }
  const types = await pushRecordTypes();
  for (const group of groups) {
    if (group === 'deleted') continue;
    (record[group] as unknown[]).forEach((item, index) => {
      for (const problem of inputShapeProblems(types[group], item, [group, index])) problems.push(toDetail(problem, record));
    });
  }
  // A deleted entry is an id or an {id} object: any other member is refused as in created and modified.
  if (groups.includes('deleted')) {
    (record.deleted as unknown[]).forEach((entry, index) => {
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return;
      for (const [name, value] of Object.entries(entry)) {
        if (name !== 'id') problems.push(toDetail({ path: ['deleted', index, name], expected: 'not a member of a deleted entry, which is an id or {"id": <id>}', value }, record));
      }
    });
  }
  if (problems.length) {
    const listed = problems.slice(0, MAX_ERROR_DETAILS).map((problem) => problem.message);
    throw badRequest(`The body is not a valid change set: ${listed.join('; ')}`, problems);
  }

  const deleted = (record.deleted as unknown[]).map((entry) => {
    const id = typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : entry;
    // Anything but an integer reaches the operation as null, which the service reports by index
    // (422); sentDeletedValues puts back the entry the client sent.
    return typeof id === 'number' && Number.isInteger(id) ? id : null;
  });
  return { created: record.created as never[], modified: record.modified as never[], deleted };
}

/**
 * The push's 422 with the `deleted` entries as the client sent them: the operation saw null where
 * an entry was not an integer id ("3", {}, {"id": "5"}), and reports that null as the value.
 */
function sentDeletedValues(error: AppError, req: Request): AppError {
  const sent = (req.body as { deleted?: unknown } | undefined)?.deleted;
  if (error.code !== ErrorCode.UNPROCESSABLE || !Array.isArray(sent)) return error;
  let changed = false;
  const details = error.details.map((detail) => {
    if (detail.group !== 'deleted' || detail.field !== 'id' || detail.value !== null || typeof detail.index !== 'number') return detail;
    const entry: unknown = sent[detail.index];
    if (entry === null || entry === undefined) return detail;
    changed = true;
    return { ...detail, value: entry };
  });
  return changed ? new AppError(error.code, error.message, { details, headers: error.headers }) : error;
}

/** The push body the contract describes, as a detail's `expected` says it. */
const CHANGE_SET = '{"created": [], "modified": [], "deleted": []}';

/**
 * A JSON body, within the configured size: none at all (no Content-Length and not chunked, or a
 * Content-Length of 0) is a 400 whatever the Content-Type says (`req.is` cannot judge a request
 * without a body); another media type is a 415; a larger body a 413.
 */
export function jsonBody(config: Config): RequestHandler[] {
  return [
    (req, _res, next) => {
      if (!hasBody(req)) {
        next(badRequest(`The push needs a JSON body: send ${CHANGE_SET} with Content-Type: application/json`, [{ field: 'body', message: `expected a JSON object ${CHANGE_SET}, got no body` }]));
        return;
      }
      next(req.is('application/json') ? undefined : unsupportedMediaType(`Content-Type must be application/json, got ${req.get('Content-Type') ?? 'none'}`));
    },
    boundedJsonBody(config.limits.jsonMaxBytes),
  ];
}

/** A list's ETag: its version, quoted (what If-Match and If-None-Match send back). */
const listETag = (version: number) => `"${version}"`;

/** A record as the contract names and orders it: `id`, then the declared fields (passenger.fields.ts). */
type ContractPassenger = { id: number } & PassengerFieldWireValues<PassengerRecordFieldName>;

/**
 * A stored record exactly as the contract names and orders a Passenger record, which is also what
 * the push takes in `created`: the per-list integer id the client chose, not a GraphQL object id.
 * Spelled out rather than copied field by field from the declaration (a literal is two orders of
 * magnitude faster on a long list: bench/README.md, "Passenger field mapping"); the annotation makes
 * the compiler refuse it the day the declaration gains or loses a field.
 */
export function toContractPassenger(passenger: PassengerRecordFragment): ContractPassenger {
  const record: ContractPassenger = {
    id: passenger.id,
    idvolo: passenger.idvolo,
    surname: passenger.surname,
    name: passenger.name,
    luogonascita: passenger.luogonascita,
    nazionalita: passenger.nazionalita,
    typedoc: passenger.typedoc,
    numberdoc: passenger.numberdoc,
    date_born: passenger.date_born,
    scadenza: passenger.scadenza,
    issuingstate: passenger.issuingstate,
    email: passenger.email,
    phone: passenger.phone,
    is_carring_infant: passenger.is_carring_infant,
    gender: passenger.gender,
    parent_id: passenger.parent_id,
    row_number_parent_id: passenger.row_number_parent_id,
    row_number: passenger.row_number,
  };
  return record;
}

/** What each exported file is, for the media types of GET …/passenger. */
const EXPORT_SCHEMAS: Record<Exclude<ExportFormat, 'json'>, object> = {
  xlsx: { type: 'string', contentEncoding: 'binary', description: 'One sheet: the upload template’s headings, one passenger per row; uploading it gives the same records' },
  csv: { type: 'string', description: 'UTF-8 with a byte order mark, RFC 4180: the xlsx export’s headings and columns, dates YYYY-MM-DD' },
  paxlst: { type: 'string', description: 'A UN/EDIFACT PAXLST (D.05B, UNOA) for the flight: reporting party, flight and airports, each passenger’s name, sex, birth, nationality and travel document' },
  pdf: { type: 'string', contentEncoding: 'binary', description: 'A printable passenger manifest: flight, aircraft, operator, airports and local times, then one row per passenger; page numbers, list version, production time' },
};

const listETagHeader = { description: 'The list version, quoted, e.g. "3"', schema: { type: 'string' } };
const flightIdDescription = { flight_id: 'The flight id' };

const readListDoc: RouteDoc = {
  operationId: 'getPassengerList',
  summary: 'Read a flight’s passenger list',
  description:
    'The flight’s passenger records in list order, each as the push takes it in created (id is the record’s integer id within the list), and the list version as ETag. Send the ETag in If-Match with the next push to refuse concurrent changes (412), or in If-None-Match to be answered 304 while the list is unchanged. A flight without a list answers [] with ETag "0". The same list comes as a file for Accept (or ?format=) xlsx, csv, pdf, paxlst (see docs/rest-api.md, Passenger list exports); a file’s ETag names its format too ("3-xlsx"). Requires scope passengers:read.',
  scope: 'passengers:read',
  pathParameters: flightIdDescription,
  parameters: [
    { name: 'format', in: 'query', description: 'The representation, whatever Accept says (so a link can ask for a file); without it Accept decides, JSON when absent or */*', schema: { type: 'string', enum: EXPORT_FORMAT_NAMES } },
    ...(['expires', 'sub', 'signature'] as const).map((name) => ({
      name,
      in: 'query' as const,
      description: `Part of a signed download link from GraphQL's passengerListDownloadUrl, which stands in for the bearer token (401 when changed or expired)`,
      schema: { type: 'string' },
    })),
    { name: 'If-None-Match', in: 'header', description: 'ETag of the list as last read, e.g. "3" (JSON) or "3-xlsx": 304 without a body while the list is at that version', schema: { type: 'string' } },
    {
      name: 'If-Match',
      in: 'header',
      description: 'ETags, one or several ("2", "3"): 412 unless one names this representation as it now is, compared strongly (W/"3" never matches; "3" does not match the xlsx file’s "3-xlsx"); * matches any flight’s list. Evaluated before If-None-Match',
      schema: { type: 'string' },
    },
  ],
  ok: {
    description: 'The records (row_number from 1, in list order), as JSON or as a file of the chosen format',
    headers: {
      ETag: { description: 'The list version, quoted, with the format for a file: "3" (JSON), "3-xlsx", "3-csv", "3-pdf", "3-paxlst"', schema: { type: 'string' } },
      'Content-Disposition': { description: 'For a file: attachment; filename="flight-<id>-passengers-v<version>.<ext>"', schema: { type: 'string' } },
      Vary: { description: 'Accept', schema: { type: 'string' } },
    },
    content: {
      'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/StoredPassenger' } } },
      ...Object.fromEntries(EXPORT_FORMAT_NAMES.filter((name) => name !== 'json').map((name) => [EXPORT_FORMATS[name].mediaType, { schema: EXPORT_SCHEMAS[name] }])),
    },
  },
  responses: {
    '304': { description: 'The list is still at the version If-None-Match names', headers: { ETag: listETagHeader } },
    '400': 'A flight id that is not a positive integer, an unknown format, or another query parameter',
    '404': 'No such flight',
    '406': 'Accept names no representation offered (the message lists them)',
    '412': 'If-Match names no ETag of the list as it now is (nothing is recorded for a file)',
    '413': 'The file would exceed the response size limit (RESPONSE_MAX_BYTES)',
    '422': 'format=paxlst on a service without the PAXLST settings, or with names that have characters ICAO Doc 9303 gives no Latin form for (Chinese, Japanese, Korean, Arabic, Hebrew, Greek, symbols) or a part longer than the 70 characters of a name component: details list each passenger (id, row, field, value); nothing is written in part or cut; format=pdf with a name (or header fact) that has characters its font cannot draw (Chinese, Japanese, Korean, some symbols) or of a right-to-left script (Arabic, Hebrew): details list each cell (id, row, field, value); xlsx and csv keep every character',
  },
};

const pushDoc: RouteDoc = {
  operationId: 'pushPassengerChanges',
  summary: 'Push a passenger list change set',
  description:
    'Applies created, modified and deleted records to the flight’s passenger list in one atomic update, or nothing. Requires scope passengers:write. The response ETag is the list version; send it back in If-Match to refuse concurrent changes (412).',
  scope: 'passengers:write',
  pathParameters: flightIdDescription,
  parameters: [
    {
      name: 'If-Match',
      in: 'header',
      description:
        'ETag of the list as last read, e.g. "3", or several ("1", "3"): the push applies only while the list is at one of them. Compared strongly: a weak tag (W/"3") never matches. * or absent: any version, a flight without a list (version 0) included',
      schema: { type: 'string' },
    },
    { name: 'Idempotency-Key', in: 'header', description: 'Retries with the same key and body within 24 hours return the first answer; another body with the key is a 409', schema: { type: 'string', maxLength: 200 } },
  ],
  requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/PassengerChanges' } } } },
  ok: { description: 'Applied (or a retry of an applied change set)', headers: { ETag: listETagHeader }, content: { 'application/json': { schema: { $ref: '#/components/schemas/PushResult' } } } },
  responses: {
    '400': 'No body, or not a change set: missing groups, unknown members (a deleted object’s members besides id among them) or wrong JSON types (every problem at once, each detail naming its member, e.g. created[0].is_carring_infant: expected true or false), or a bad If-Match or Idempotency-Key',
    '404': 'No such flight',
    '409': 'A created id exists with other content, or the Idempotency-Key was used with another body',
    '412': 'If-Match names no version the list is at (stale versions, or weak tags only)',
    '413': 'Body larger than JSON_MAX_BYTES, or a group (created, modified or deleted) of more than INPUT_MAX_LIST_ITEMS items (5,000 by default; the details name each group and the limit), or a list the database would refuse as too large',
    '415': 'Content-Type is not application/json',
    '422': 'Invalid records; details list each problem with group, index, id, field and message, and the value sent (a deleted entry that is not an integer id: the entry as sent)',
  },
};

export function passengerRoutes(config: Config) {
  return [
    defineRoute({
      method: 'GET',
      path: '/flight/:flight_id/passenger',
      operation: PassengerListDocument,
      toVariables: (req) => {
        const format = chooseExportFormat(req);
        return { flightId: readIdParameter(req, 'flight_id'), withFlight: needsFlight(format) };
      },
      linkPrincipal: signedLinkPrincipal,
      vary: ['Accept'],
      etag: (data, req) => exportETag(data.passengerList.version, chooseExportFormat(req)),
      toRepresentation: async ({ passengerList, flight }, req, context) => {
        const format = chooseExportFormat(req);
        if (format === 'json') return undefined;
        const file = await exportRepresentation(format, {
          list: passengerList,
          flight,
          operator: context.config.manifestOperator,
          paxlst: context.config.paxlst,
          producedAt: new Date(),
          ended: context.ended,
          pdfRenders: context.services.pdfRenders,
        });
        // A client gone while its file was made is not recorded as having exported it: nothing is sent.
        if (context.ended?.aborted) throw clientGone();
        const { responseMaxBytes } = context.config.limits;
        if (file.bytes.byteLength > responseMaxBytes) throw exportTooLarge(format, file.bytes.byteLength, responseMaxBytes);
        // A HEAD answers the headers a GET would (the file is built for its Content-Length and for
        // the refusals a GET would meet) but sends no file, so it records nothing.
        if (req.method === 'HEAD') return file;
        // Recorded before a byte is sent: a file of personal data that cannot be recorded is not sent (503).
        await context.services.passengerLists.recordExport(passengerList.flightId, {
          subject: context.principal!.subject,
          tokenId: context.principal!.tokenId ?? null,
          format,
          version: passengerList.version,
        });
        return file;
      },
      toResponse: (data) => data.passengerList.passengers.map(toContractPassenger),
      doc: readListDoc,
    }),
    defineRoute({
      method: 'POST',
      path: '/flight/:flight_id/passenger',
      middleware: jsonBody(config),
      operation: PushPassengerListDocument,
      toVariables: async (req) => {
        readQueryParameters(req, []);
        return {
          flightId: readIdParameter(req, 'flight_id'),
          changes: await readChanges(req.body, config.limits.inputMaxListItems),
          expectedVersion: null,
          expectedVersions: ifMatchVersions(req),
          idempotencyKey: req.get('Idempotency-Key') ?? null,
        };
      },
      etag: (data) => listETag(data.pushPassengerList.version),
      toError: (error, req) => weakTagsNote(sentDeletedValues(error, req), req),
      // Spelled out so the body keeps the contract's names and order whatever GraphQL calls them.
      toResponse: ({ pushPassengerList: result }) => ({
        status: result.status,
        flight_id: result.flight_id,
        version: result.version,
        created: result.created,
        modified: result.modified,
        deleted: result.deleted,
        passengers: result.passengers,
        warnings: result.warnings.map((warning) => ({ code: warning.code, id: warning.id, message: warning.message })),
      }),
      doc: pushDoc,
    }),
  ];
}
