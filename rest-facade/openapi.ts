/**
 * The OpenAPI 3.1 description of the facade, derived from the route table as SOFA derives its
 * document from the schema: the paths, methods and path parameters from the routes, the parameters'
 * and bodies' schemas from the operations they run (openapi-schemas.ts), the answers every route
 * gives from what it needs (a scope, an operation). Only the prose is written by hand, beside each
 * route (its `doc`). The facade's tests validate real responses against these schemas, so the
 * document cannot drift from the behaviour unnoticed.
 */
import type { DocumentNode, GraphQLSchema } from 'graphql';
import { gatewaySchema } from '../src/graphql/schema';
import { variableSchema } from './openapi-derive';
import { componentSchemas } from './openapi-schemas';
import type { ParameterDoc, RouteDoc } from './route';

/** A route as the document sees it: the table's routes, and those the facade serves itself (no operation). */
export interface DocumentedRoute {
  method: 'GET' | 'POST';
  /** Express path below the base (`/flight/:flight_id/passenger`). */
  path: string;
  operation?: DocumentNode;
  doc: RouteDoc;
}

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

/** Answers every route that needs a token can give: token problems and the per-client rate limit. */
const authErrors = {
  '401': errorResponse('No, malformed or invalid bearer token', wwwAuthenticate),
  '403': errorResponse('The token lacks the scope this route needs (named in WWW-Authenticate)', wwwAuthenticate),
  '429': errorResponse('More requests from this client in a minute than RATE_LIMIT_PER_MINUTE', {
    'Retry-After': { description: 'Seconds until the client may send again', schema: { type: 'string' } },
  }),
};

/** `/flight/:flight_id/passenger` → `/flight/{flight_id}/passenger`, as the OpenAPI document writes paths. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

/** The path's parameters, from the path itself: every one is a positive integer id. */
function pathParameters(route: DocumentedRoute) {
  return [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => {
    const description = route.doc.pathParameters?.[name];
    if (!description) throw new Error(`${route.path}: the doc describes no path parameter ${name}`);
    return { name, in: 'path', required: true, description, schema: { type: 'integer', minimum: 1 } };
  });
}

/** A query or header parameter; one that is an operation variable takes its schema from the variable's type. */
function parameter(route: DocumentedRoute, schema: GraphQLSchema, doc: ParameterDoc) {
  const derived = doc.variable && route.operation ? variableSchema(schema, route.operation, doc.variable) : {};
  return { name: doc.name, in: doc.in, required: doc.required ?? false, description: doc.description, schema: { ...derived, ...doc.schema } };
}

/**
 * Every GET answer carries an ETag and is revalidated with If-None-Match: a route's own version
 * (the list read documents its 304 itself) or, for the others, a hash of the bytes sent
 * (src/http/response-encoding.ts).
 */
const contentETag = { ETag: { description: 'A strong validator of the answer (a hash of its bytes): send it in If-None-Match to be answered 304 while it is unchanged', schema: { type: 'string' } } };
const notModified = { description: 'The answer is still the one whose ETag If-None-Match names: no body', headers: contentETag };

function responses(route: DocumentedRoute) {
  const { doc } = route;
  const own = Object.fromEntries(Object.entries(doc.responses).map(([status, response]) => [status, typeof response === 'string' ? errorResponse(response) : response]));
  const revalidated = route.method === 'GET' && !('304' in own);
  const headers = revalidated ? { ...contentETag, ...doc.ok.headers } : doc.ok.headers;
  return {
    '200': { description: doc.ok.description, ...(headers ? { headers } : {}), content: doc.ok.content },
    ...(revalidated ? { '304': notModified } : {}),
    ...own,
    ...(doc.scope ? authErrors : {}),
    '405': methodNotAllowed,
    ...(route.operation ? { '503': errorResponse('The database is unavailable') } : {}),
  };
}

function operationObject(route: DocumentedRoute, schema: GraphQLSchema) {
  const { doc } = route;
  const parameters = [...pathParameters(route), ...(doc.parameters ?? []).map((item) => parameter(route, schema, item))];
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    security: doc.scope ? [{ bearer: [doc.scope] }] : [],
    ...(parameters.length ? { parameters } : {}),
    ...(doc.requestBody ? { requestBody: doc.requestBody } : {}),
    responses: responses(route),
  };
}

function paths(routes: readonly DocumentedRoute[], schema: GraphQLSchema) {
  const result: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    result[path] = { ...result[path], [route.method.toLowerCase()]: operationObject(route, schema) };
  }
  return result;
}

/** The index at the base address: its body lists the table's routes (rest-facade/index.ts). */
function indexRoute(methods: readonly string[]): DocumentedRoute {
  const routeSchema = {
    type: 'object',
    additionalProperties: false,
    required: ['method', 'path', 'operation', 'scope'],
    properties: {
      method: { type: 'string', enum: methods },
      path: { type: 'string' },
      operation: { type: ['string', 'null'], description: 'The named GraphQL operation the route runs (null: served by the facade itself)' },
      scope: {
        type: ['string', 'null'],
        description: 'The scope the route’s bearer token needs (null: no token). Some answers need one more, named in the route’s description (a PDF or PAXLST export also timeline:read)',
      },
    },
  };
  const body = {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'version', 'openapi', 'contract', 'routes'],
    properties: { name: { type: 'string' }, version: { type: 'string', const: 'v0' }, openapi: { type: 'string', format: 'uri' }, contract: { type: 'string' }, routes: { type: 'array', items: routeSchema } },
  };
  const doc: RouteDoc = {
    operationId: 'getRouteIndex',
    summary: 'The routes of this facade',
    description: 'Every route with its method, the GraphQL operation it runs and the scope it needs, and the address of this document. No token needed.',
    scope: null,
    ok: { description: 'The route index', content: { 'application/json': { schema: body } } },
    responses: {},
  };
  return { method: 'GET', path: '/', doc };
}

const documentRoute: DocumentedRoute = {
  method: 'GET',
  path: '/openapi.json',
  doc: { operationId: 'getOpenApiDocument', summary: 'This document', scope: null, ok: { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } }, responses: {} },
};

const info = {
  title: 'Broker flight timeline and passenger list interface',
  version: 'v0',
  // The service is proprietary (package.json: UNLICENSED); SPDX's LicenseRef- form names that.
  license: { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' },
  description:
    'The legacy REST facade of the broker flight gateway. Every route runs a named GraphQL operation of /graphql. Errors share one body: {"error": {"code", "message", "details"}}.',
};

const bearer = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: 'Scopes: timeline:read, passengers:read, passengers:write, flights:write (claim `scope` or `scp`).',
};

/** The document for the facade's routes (the table's and those the facade serves itself, such as the template). */
export async function buildOpenApiDocument(routes: readonly DocumentedRoute[]) {
  const schema = await gatewaySchema();
  const methods = [...new Set(routes.map((route) => route.method))].sort();
  return {
    openapi: '3.1.0',
    info,
    security: [{ bearer: [] }],
    paths: paths([indexRoute(methods), ...routes, documentRoute], schema),
    components: { securitySchemes: { bearer }, schemas: componentSchemas(schema) },
  };
}
