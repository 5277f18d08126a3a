import type { ServerResponse } from 'node:http';
import DataLoader from 'dataloader';
import type { AirportData } from '../airports/airport.service';
import type { CredentialsRequest, Principal, RequestAuthenticator } from '../auth';
import { isHostHeader, type Config } from '../config';
import type { Logger } from '../logger';
import type { PassengerRecord } from '../passengers/passenger.record';
import type { ResourceData } from '../resources/resource.service';
import type { Services } from '../services';

/** Per-request batch loaders: a list of N flights costs one query per relation, not N. */
export interface Loaders {
  airportByIcao: DataLoader<string, AirportData | null>;
  resourceById: DataLoader<number, ResourceData | null>;
  passengerCountByFlight: DataLoader<number, number>;
  passengersByFlight: DataLoader<number, PassengerRecord[]>;
}

/**
 * Where `responseSizeLimit`'s plugin leaves the UTF-8 bytes of an HTTP request's answer: the
 * context's `answer` (a holder object, as Apollo gives plugins a shallow copy of the context).
 * For such an answer `stringifyResult` gives Apollo an empty string, and the HTTP route (src/app.ts,
 * `sendEncodedAnswer`) sends these bytes in its place: no 2 MB string per answer.
 */
export interface AnswerHolder {
  /** Set by the plugin, taken (and cleared) by the HTTP route as it sends them. */
  bytes?: Buffer;
}

/** What every resolver receives. */
export interface GraphQLContext {
  /** The verified caller; undefined when the request carried no token. */
  principal?: Principal;
  services: Services;
  loaders: Loaders;
  config: Config;
  logger: Logger;
  requestId: string;
  /** `scheme://host` the client used, for absolute URLs in answers. */
  baseUrl: string;
  /** Non-fatal remarks of this request; a plugin puts them in the response's extensions.warnings. */
  warnings: string[];
  /** HTTP requests only: the answer's bytes, once encoded (AnswerHolder above; src/graphql/execution-limits.ts). */
  answer?: AnswerHolder;
  /**
   * HTTP requests only: aborted when the response is closed, its answer handed to the socket or its
   * client gone. What a request holds until its answer is sent is released then (large timeline reads).
   */
  ended?: AbortSignal;
  /** When the request's execution time limit (GRAPHQL_TIMEOUT_MS) runs out, on `performance.now()`'s clock; set as execution starts. */
  executionDeadline?: number;
}

export function createLoaders(services: Services): Loaders {
  return {
    airportByIcao: new DataLoader(async (codes) => {
      const airports = await services.airports.byIcao(codes);
      const byCode = new Map(airports.map((airport) => [airport.icao, airport]));
      return codes.map((code) => byCode.get(code) ?? null);
    }),
    resourceById: new DataLoader(async (ids) => {
      const resources = await services.resources.byIds(ids);
      const byId = new Map(resources.map((resource) => [resource.id, resource]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    passengerCountByFlight: new DataLoader(async (flightIds) => {
      const counts = await services.passengerLists.countsByFlight(flightIds);
      return flightIds.map((id) => counts.get(id) ?? 0);
    }),
    passengersByFlight: new DataLoader(async (flightIds) => {
      const lists = await services.passengerLists.byFlights(flightIds);
      return flightIds.map((id) => lists.get(id) ?? []);
    }),
  };
}

export interface ContextFactoryDeps {
  services: Services;
  config: Config;
  logger: Logger;
  authenticate: RequestAuthenticator;
}

/** The minimum of an HTTP request the context needs (Express's Request satisfies it). */
export interface ContextRequest extends CredentialsRequest {
  protocol?: string;
  id?: unknown;
  log?: Logger;
  /** Express's link to the response: its closing ends the request (`ended`). */
  res?: Pick<ServerResponse, 'once'>;
}

/** The reason of every `ended` signal: made once (an abort without one makes a DOMException, stack and all, per request). */
const RESPONSE_CLOSED = Object.freeze(new Error('the response was closed'));

/** Aborted when the response closes (sent, or the connection lost). */
function responseEnded(res: Pick<ServerResponse, 'once'>): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => controller.abort(RESPONSE_CLOSED));
  return controller.signal;
}

/**
 * The absolute base URL for links in answers (openapi.json's servers, passengerTemplateUrl):
 * PUBLIC_URL when configured; otherwise the scheme and Host the client used, but only when they
 * are an http(s) scheme and a plain host name or address, so a forged Host or X-Forwarded-Proto
 * (`javascript://…`) can never be reflected. PUBLIC_HOST stands in for a Host that fails the check.
 */
export function requestBaseUrl(req: ContextRequest, config: Pick<Config, 'publicHost' | 'publicUrl'>): string {
  if (config.publicUrl) return config.publicUrl;
  const https = req.protocol === 'https';
  const host = req.headers.host;
  // Clients send the same Host request after request: the last answer is kept (the check is a regular expression).
  const last = lastBaseUrl;
  if (last && last.host === host && last.https === https && last.config === config) return last.url;
  const url = `${https ? 'https' : 'http'}://${host !== undefined && isHostHeader(host) ? host.toLowerCase() : config.publicHost}`;
  lastBaseUrl = { host, https, config, url };
  return url;
}

let lastBaseUrl: { host: string | undefined; https: boolean; config: object; url: string } | undefined;

/**
 * Builds a request's context: one verifier for GraphQL and the REST facade alike. A bad token is
 * rejected here (401); a missing one leaves `principal` undefined for `@Authorized` to refuse.
 */
export function createContextFactory(deps: ContextFactoryDeps) {
  return async (req: ContextRequest): Promise<GraphQLContext> => ({
    principal: await deps.authenticate(req),
    services: deps.services,
    loaders: createLoaders(deps.services),
    config: deps.config,
    logger: req.log ?? deps.logger,
    requestId: String(req.id ?? ''),
    baseUrl: requestBaseUrl(req, deps.config),
    warnings: [],
    answer: {},
    ...(req.res ? { ended: responseEnded(req.res) } : {}),
  });
}
