import DataLoader from 'dataloader';
import type { AirportData } from './airports/airport.service';
import type { Principal, TokenVerifier } from './auth';
import type { Config } from './config';
import type { Logger } from './logger';
import type { PassengerRecord } from './passengers/passenger.record';
import type { ResourceData } from './resources/resource.service';
import type { Services } from './services';

/** Per-request batch loaders: a list of N flights costs one query per relation, not N. */
export interface Loaders {
  airportByIcao: DataLoader<string, AirportData | null>;
  resourceById: DataLoader<number, ResourceData | null>;
  passengerCountByFlight: DataLoader<number, number>;
  passengersByFlight: DataLoader<number, PassengerRecord[]>;
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
  verifier: TokenVerifier;
}

/** The minimum of an HTTP request the context needs (Express's Request satisfies it). */
export interface ContextRequest {
  headers: { authorization?: string; host?: string };
  protocol?: string;
  id?: unknown;
  log?: Logger;
}

/** `scheme://host` as the client addressed this service (PUBLIC_HOST when the request has no Host). */
export function requestBaseUrl(req: ContextRequest, config: Pick<Config, 'publicHost'>): string {
  return `${req.protocol ?? 'http'}://${req.headers.host ?? config.publicHost}`;
}

/**
 * Builds a request's context: one verifier for GraphQL and the REST facade alike. A bad token is
 * rejected here (401); a missing one leaves `principal` undefined for `@Authorized` to refuse.
 */
export function createContextFactory(deps: ContextFactoryDeps) {
  return async (req: ContextRequest): Promise<GraphQLContext> => ({
    principal: await deps.verifier.authenticate(req.headers.authorization),
    services: deps.services,
    loaders: createLoaders(deps.services),
    config: deps.config,
    logger: req.log ?? deps.logger,
    requestId: String(req.id ?? ''),
    baseUrl: requestBaseUrl(req, deps.config),
    warnings: [],
  });
}
