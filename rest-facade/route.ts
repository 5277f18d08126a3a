import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { Request, RequestHandler } from 'express';
import type { Principal } from '../src/auth/principal';
import type { Config } from '../src/config';
import type { AppError } from '../src/errors';
import type { GraphQLContext } from '../src/graphql-kit/context';

/**
 * One legacy route: which named GraphQL operation it runs, how the request becomes the
 * operation's variables, and how the operation's data becomes the legacy response body.
 */
export interface FacadeRoute<Data = unknown, Variables extends Record<string, unknown> = Record<string, unknown>> {
  method: 'GET' | 'POST';
  /** Express path below /api/broker/v0. */
  path: string;
  /** Body parsing and checks that run before the handler (JSON, multipart). */
  middleware?: RequestHandler[];
  operation: TypedDocumentNode<Data, Variables>;
  /** Reads and checks the request; throws an AppError (400, 415…) naming what is wrong. */
  toVariables(req: Request): Variables | Promise<Variables>;
  /** Reshapes the operation's data into the legacy body. */
  toResponse(data: Data, req: Request): unknown;
  /**
   * The representation's strong validator (a list's version, quoted). The handler sends it as
   * `ETag` and, on GET and HEAD, answers 304 without a body when `If-None-Match` names it.
   */
  etag?(data: Data, req: Request): string;
  /**
   * A representation other than JSON (a spreadsheet, a document) for this request, or undefined for
   * the JSON of `toResponse`. Its bytes are held to the same response size cap. Called for HEAD
   * too (Express routes HEAD to GET; the headers must be a GET's), where nothing is sent: a route
   * that records what it sends records nothing then.
   */
  toRepresentation?(data: Data, req: Request, context: GraphQLContext): Promise<Representation | undefined>;
  /**
   * For a request without a token: the principal a signed link in the query grants (throws 401 for
   * a bad or expired link), or undefined when the query has none.
   */
  linkPrincipal?(req: Request, config: Config): Principal | undefined;
  /** Request headers the representation depends on (`Vary`), such as Accept. */
  vary?: string[];
  /**
   * Rewords an error before it is sent, in the terms of the request (a value the client sent where
   * the operation saw another); the error itself when nothing needs saying otherwise.
   */
  toError?(error: AppError, req: Request): AppError;
  /** Extra response headers derived from the data or the response extensions (warnings…). */
  toHeaders?(data: Data, extensions: Record<string, unknown>): Record<string, string>;
  /** What the OpenAPI document says of the route beyond what it derives (openapi.ts). */
  doc: RouteDoc;
}

/** A query or header parameter, as the OpenAPI document describes it. */
export interface ParameterDoc {
  name: string;
  in: 'query' | 'header';
  description: string;
  required?: boolean;
  /** The operation variable the parameter becomes: its GraphQL type gives the schema, `schema` refines it. */
  variable?: string;
  schema?: Record<string, unknown>;
}

/**
 * The prose of a route's OpenAPI operation, which nothing else holds. The document derives the
 * rest: the path, its parameters and the method from the table, the schemas from the operation,
 * and the answers every route gives (401, 403 and 429 when it needs a scope, 405, 503 when it runs
 * an operation).
 */
export interface RouteDoc {
  operationId: string;
  summary: string;
  description?: string;
  /** The scope the operation's resolver demands (the route's OpenAPI security); null: no token. */
  scope: string | null;
  /** Descriptions of the path's parameters (each a positive integer id), by name. */
  pathParameters?: Record<string, string>;
  /** Query and header parameters, after the path's. */
  parameters?: ParameterDoc[];
  requestBody?: Record<string, unknown>;
  /** The 200 answer: its description, headers and content by media type. */
  ok: { description: string; headers?: Record<string, unknown>; content: Record<string, unknown> };
  /** The route's other answers by status: the description of its error body, or a whole response object (a 304). */
  responses: Record<string, string | Record<string, unknown>>;
}

/** A response body of its own media type, with the headers that go with it (Content-Disposition…). */
export interface Representation {
  contentType: string;
  bytes: Buffer;
  headers?: Record<string, string>;
}

/** Keeps each route's Data and Variables types linked while the table holds them side by side. */
export function defineRoute<Data, Variables extends Record<string, unknown>>(
  route: FacadeRoute<Data, Variables>,
): FacadeRoute<Data, Variables> {
  return route;
}

/** A route of any operation, as the table holds them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFacadeRoute = FacadeRoute<any, any>;
