import type { ApolloServer } from '@apollo/server';
import { Kind, print, type DocumentNode, type GraphQLFormattedError } from 'graphql';
import type { Request, RequestHandler } from 'express';
import { authenticationRequired } from '../src/auth';
import type { GraphQLContext } from '../src/graphql-kit/context';
import { AppError, ErrorCode, type ErrorDetail } from '../src/errors';
import { responseTooLarge } from '../src/graphql/execution-limits';
import { writeJson } from '../src/shared/json-writer';
import { ifNoneMatchNames } from '../src/http/response-encoding';
import { sendError, toAppError } from './errors';
import type { FacadeRoute } from './route';

export interface FacadeHandlerDeps {
  apollo: ApolloServer<GraphQLContext>;
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
      context.principal ??= route?.linkPrincipal?.(req, context.config);
      if (!context.principal) throw authenticationRequired();
      res.locals.graphqlContext = context;
      next();
    } catch (error) {
      next(error);
    }
  };
}

/**
 * The one handler behind every legacy route: turn the request into variables, run the route's
 * operation in-process with the context built by `facadeContext`, and write either the reshaped
 * data or the first error with the status the error carries.
 */
export function facadeHandler<Data, Variables extends Record<string, unknown>>(
  route: FacadeRoute<Data, Variables>,
  deps: FacadeHandlerDeps,
): RequestHandler {
  // The operation's text, printed once: given the document, Apollo would print it on every request
  // (it keys its parsed-and-validated document cache and graphql-jit's compiled queries by the text).
  const query = print(route.operation);
  const mutation = writes(route.operation);
  return async (req, res, next) => {
    try {
      const contextValue = res.locals.graphqlContext as GraphQLContext;
      if (route.vary) res.vary(route.vary.join(', '));
      const variables = await route.toVariables(req);
      const response = await deps.apollo.executeOperation<Data, Variables>(
        { query, variables },
        { contextValue },
      );
      if (response.body.kind !== 'single') throw new Error('incremental delivery is not used by the facade');
      const { data, errors, extensions } = response.body.singleResult;
      if (errors?.length) {
        const headers = Object.fromEntries(response.http.headers);
        sendError(res, fromGraphQLError(errors[0], response.http.status, headers));
        return;
      }
      const etag = route.etag?.(data as Data, req);
      if (etag !== undefined) {
        res.setHeader('ETag', etag);
        // The client's copy is current: the body is neither built nor sent.
        if ((req.method === 'GET' || req.method === 'HEAD') && ifNoneMatchNames(req.get('If-None-Match'), etag)) {
          res.status(304).end();
          return;
        }
      }
      for (const [name, value] of Object.entries(route.toHeaders?.(data as Data, extensions ?? {}) ?? {})) res.setHeader(name, value);
      const { responseMaxBytes } = contextValue.config.limits;
      const representation = await route.toRepresentation?.(data as Data, req, contextValue);
      if (representation) {
        if (representation.bytes.byteLength > responseMaxBytes) throw responseTooLarge(representation.bytes.byteLength, responseMaxBytes);
        for (const [name, value] of Object.entries(representation.headers ?? {})) res.setHeader(name, value);
        res.status(200).type(representation.contentType).send(representation.bytes);
        return;
      }
      // The same cap as /graphql answers (RESPONSE_MAX_BYTES), measured on what is sent, and as
      // there never on a write's answer (a push that happened is reported). The JSON is written a
      // slice at a time (src/shared/json-writer.ts).
      const body = writeJson(route.toResponse(data as Data, req), mutation ? Infinity : responseMaxBytes);
      if (!('bytes' in body)) throw responseTooLarge(body.byteLength, responseMaxBytes);
      res.status(200).type('application/json').send(body.bytes);
    } catch (error) {
      // An ETag describes the representation, never an error about it (an answer over the size cap).
      if (!res.headersSent) res.removeHeader('ETag');
      const appError = toAppError(error);
      if (appError) sendError(res, appError);
      else next(error);
    }
  };
}

/** Does the route's operation write (a mutation)? */
function writes(document: DocumentNode): boolean {
  return document.definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION && definition.operation === 'mutation');
}

/** Rebuilds the AppError a resolver threw from its formatted GraphQL error and the HTTP status. */
function fromGraphQLError(error: GraphQLFormattedError, status: number | undefined, headers: Record<string, string>): AppError {
  const code = (error.extensions?.code as ErrorCode | undefined) ?? ErrorCode.INTERNAL_SERVER_ERROR;
  const known = Object.values(ErrorCode).includes(code) ? code : status && status < 500 ? ErrorCode.BAD_REQUEST : ErrorCode.INTERNAL_SERVER_ERROR;
  const details = (error.extensions?.details as ErrorDetail[] | undefined) ?? [];
  const wanted = ['www-authenticate', 'allow', 'retry-after', 'etag'];
  const passHeaders = Object.fromEntries(Object.entries(headers).filter(([name]) => wanted.includes(name.toLowerCase())));
  return new AppError(known, error.message, { details, headers: passHeaders });
}
