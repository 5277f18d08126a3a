import type { Request, RequestHandler } from 'express';
import { authenticationRequired } from '../src/auth';
import type { GraphQLContext } from '../src/graphql-kit/context';
import { responseTooLarge } from '../src/graphql/execution-limits';
import type { PreparedOperation } from '../src/graphql/prepared-operation';
import { writeJson } from '../src/shared/json-writer';
import { ifNoneMatchNames } from '../src/http/response-encoding';
import { GRAPHQL_CONTEXT, takeLocal } from '../src/http/request-state';
import { ifMatchAllows, ifMatchFailed, readIfMatch } from './conditional';
import { sendError, toAppError } from './errors';
import type { FacadeRoute } from './route';

export interface FacadeHandlerDeps {
  /** Prepares a route's operation once, to run it in-process per request (src/graphql/prepared-operation.ts). */
  prepare<Data, Variables extends Record<string, unknown>>(operation: FacadeRoute<Data, Variables>['operation']): PreparedOperation<Data, Variables>;
  createContext(req: Request): Promise<GraphQLContext>;
}

/**
 * First step of every legacy route: demand and verify the token and build the GraphQL context,
 * before parameters or bodies are read (an anonymous client never gets to upload megabytes). The
 * scope each route needs is checked by its operation's resolver.
 */
export function facadeContext(deps: FacadeHandlerDeps, route?: Pick<FacadeRoute, 'linkPrincipal'>): RequestHandler {
  return async (req, res, next) => {
    try {
      const context = await deps.createContext(req);
      if (!context.principal && route?.linkPrincipal) {
        context.principal = route.linkPrincipal(req, context.config);
        // A signed link carries no Authorization header, so a shared cache could keep its answer (personal data) past the link's life.
        if (context.principal) res.setHeader('Cache-Control', 'private, no-store');
      }
      if (!context.principal) throw authenticationRequired();
      res.locals[GRAPHQL_CONTEXT] = context;
      next();
    } catch (error) {
      next(error);
    }
  };
}

/**
 * The one handler behind every legacy route: turn the request into variables, run the route's
 * operation in-process (prepared once, when the route is built) with the context built by
 * `facadeContext`, and write either the reshaped data or the error with the status it carries.
 */
export function facadeHandler<Data, Variables extends Record<string, unknown>>(
  route: FacadeRoute<Data, Variables>,
  deps: FacadeHandlerDeps,
): RequestHandler {
  const operation = deps.prepare(route.operation);
  const mutation = operation.type === 'mutation';
  return async (req, res, next) => {
    try {
      const contextValue = takeLocal<GraphQLContext>(res, GRAPHQL_CONTEXT)!;
      if (route.vary) res.vary(route.vary.join(', '));
      const variables = await route.toVariables(req);
      // A read of a representation with an ETag evaluates If-Match (RFC 9110 13.2.2: before
      // If-None-Match); a write's is its operation's to evaluate (a push's expectedVersions).
      const safe = req.method === 'GET' || req.method === 'HEAD';
      const ifMatch = safe && route.etag ? readIfMatch(req) : undefined;
      const { data, extensions } = await operation.run(variables, contextValue);
      const etag = route.etag?.(data, req);
      if (etag !== undefined) {
        if (ifMatch !== undefined && !ifMatchAllows(ifMatch, etag)) throw ifMatchFailed(req, etag);
        res.setHeader('ETag', etag);
        // The client's copy is current: the body is neither built nor sent.
        if (safe && ifNoneMatchNames(req.get('If-None-Match'), etag)) {
          res.status(304).end();
          return;
        }
      }
      for (const [name, value] of Object.entries(route.toHeaders?.(data, extensions) ?? {})) res.setHeader(name, value);
      const { responseMaxBytes } = contextValue.config.limits;
      const representation = await route.toRepresentation?.(data, req, contextValue);
      if (representation) {
        if (representation.bytes.byteLength > responseMaxBytes) throw responseTooLarge(representation.bytes.byteLength, responseMaxBytes);
        for (const [name, value] of Object.entries(representation.headers ?? {})) res.setHeader(name, value);
        res.status(200).type(representation.contentType).send(representation.bytes);
        return;
      }
      // The same cap as /graphql answers (RESPONSE_MAX_BYTES), measured on what is sent, and as
      // there never on a write's answer (a push that happened is reported). The JSON is written a
      // slice at a time (src/shared/json-writer.ts).
      const body = writeJson(route.toResponse(data, req), mutation ? Infinity : responseMaxBytes);
      if (!('bytes' in body)) throw responseTooLarge(body.byteLength, responseMaxBytes);
      // What `res.type('application/json')` sets, without its look-up in the media type table.
      res.status(200).setHeader('Content-Type', 'application/json; charset=utf-8');
      res.send(body.bytes);
    } catch (error) {
      // An ETag describes the representation, never an error about it (an answer over the size cap).
      if (!res.headersSent) res.removeHeader('ETag');
      const appError = toAppError(error);
      if (appError) sendError(res, route.toError?.(appError, req) ?? appError);
      else next(error);
    }
  };
}
