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
import { PASSENGER_RECORD_FIELD_NAMES, pickPassengerFields } from '../src/passengers/passenger.fields';
import { boundedJsonBody } from '../src/http/json-body';
import { chooseExportFormat, exportETag, exportRepresentation, exportTooLarge, needsFlight, signedLinkPrincipal } from './passenger-export';
import { formatPath, inputShapeProblems, type ShapeProblem } from './input-shape';
import { readIdParameter, readQueryParameters } from './query';
import { defineRoute } from './route';

const GROUPS = ['created', 'modified', 'deleted'] as const;

/** `If-Match: "3"` (or W/"3", or 3) → 3; `*` → no version pinned. A list's ETag is its version. */
export function readIfMatch(req: Request): number | null {
  const header = req.get('If-Match');
  if (header === undefined || header.trim() === '*') return null;
  const match = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(header);
  if (!match) {
    throw badRequest(`If-Match must be the ETag of the passenger list, such as "3", got ${header}`, [{ field: 'If-Match', message: 'expected a quoted version number from an earlier ETag' }]);
  }
  return Number(match[1]);
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
  if (problems.length) {
    const listed = problems.slice(0, MAX_ERROR_DETAILS).map((problem) => problem.message);
    throw badRequest(`The body is not a valid change set: ${listed.join('; ')}`, problems);
  }

  const deleted = (record.deleted as unknown[]).map((entry) => {
    const id = typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : entry;
    // Anything but an integer reaches the operation as null, which the service reports by index (422).
    return typeof id === 'number' && Number.isInteger(id) ? id : null;
  });
  return { created: record.created as never[], modified: record.modified as never[], deleted };
}

/** JSON bodies only, within the configured size (415 and 413 otherwise). */
export function jsonBody(config: Config): RequestHandler[] {
  return [
    (req, _res, next) => {
      next(req.is('application/json') ? undefined : unsupportedMediaType(`Content-Type must be application/json, got ${req.get('Content-Type') ?? 'none'}`));
    },
    boundedJsonBody(config.limits.jsonMaxBytes),
  ];
}

/** A list's ETag: its version, quoted (what If-Match and If-None-Match send back). */
const listETag = (version: number) => `"${version}"`;

/**
 * A stored record exactly as the contract names and orders a Passenger record, which is also what
 * the push takes in `created`: the per-list integer id the client chose, not a GraphQL object id.
 */
export function toContractPassenger(passenger: PassengerRecordFragment) {
  return {
    id: passenger.id,
    ...pickPassengerFields(passenger, PASSENGER_RECORD_FIELD_NAMES),
  };
}

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
        const file = await exportRepresentation(format, { list: passengerList, flight, operator: context.config.manifestOperator, paxlst: context.config.paxlst, producedAt: new Date() });
        const { responseMaxBytes } = context.config.limits;
        if (file.bytes.byteLength > responseMaxBytes) throw exportTooLarge(format, file.bytes.byteLength, responseMaxBytes);
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
          expectedVersion: readIfMatch(req),
          idempotencyKey: req.get('Idempotency-Key') ?? null,
        };
      },
      etag: (data) => listETag(data.pushPassengerList.version),
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
    }),
  ];
}
