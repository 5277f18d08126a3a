import { HeaderMap, type ApolloServer } from '@apollo/server';
import type { Request, RequestHandler } from 'express';
import type { GraphQLContext } from '../graphql-kit/context';
import { GRAPHQL_CONTEXT, takeLocal } from '../http/request-state';

/**
 * Serves Apollo Server on an Express route, after the body readers (src/http/json-body.ts,
 * multipart-request.ts) have put the request's JSON in `req.body`. What Apollo's Express
 * integration does, minus its `url.parse` of every request URL (deprecated, and on a small request
 * dearer than the rest of the adapter), plus one thing of ours: where the response-size plugin left
 * the answer's encoded bytes (AnswerHolder, src/graphql/execution-limits.ts), Apollo hands over an
 * empty string, and the bytes are sent in its place. They are taken out of the holder as they are
 * sent: the context outlives the request until V8's next full collection whenever an object of the
 * old generation still points at it (the request and response objects themselves: src/http/request-state.ts),
 * and a context holding a 2 MB answer each time filled memory outside the heap fast enough to start
 * a full marking every few requests (bench/README.md, "Timeline").
 */
export function graphqlHttpHandler(apollo: ApolloServer<GraphQLContext>, createContext: (req: Request) => Promise<GraphQLContext>): RequestHandler {
  apollo.assertStarted('graphqlHttpHandler()');
  return async (req, res, next) => {
    try {
      const headers = new HeaderMap();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      let context: GraphQLContext | undefined;
      const response = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: req.method.toUpperCase(), headers, search: searchOf(req.url), body: req.body },
        // Kept on res.locals while Apollo runs the request, as the REST facade keeps its own, and
        // taken off once it has answered (src/http/request-state.ts).
        context: async () => (context = res.locals[GRAPHQL_CONTEXT] = await createContext(req)),
      }).finally(() => takeLocal(res, GRAPHQL_CONTEXT));
      for (const [name, value] of response.headers) res.setHeader(name, value);
      res.statusCode = response.status ?? 200;
      if (response.body.kind === 'complete') {
        const holder = context?.answer;
        const encoded = holder?.bytes;
        if (holder) holder.bytes = undefined;
        res.send(response.body.string === '' && encoded ? encoded : response.body.string);
        return;
      }
      // Incremental delivery (@defer) is not enabled; written as Apollo's integration would, should it be.
      for await (const chunk of response.body.asyncIterator) res.write(chunk);
      res.end();
    } catch (error) {
      next(error);
    }
  };
}

/** The query string of a request target, `?` included ('' without one), as `url.parse(url).search` gives it. */
function searchOf(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return '';
  const hash = url.indexOf('#', start);
  return hash === -1 ? url.slice(start) : url.slice(start, hash);
}
