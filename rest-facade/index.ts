import { Router, type Request, type RequestHandler } from 'express';
import { getOperationAST } from 'graphql';
import { AppError, ErrorCode, notFound } from '../src/errors';
import { PASSENGER_TEMPLATE_PATH } from '../src/passengers/passenger-upload.schema';
import type { AnyFacadeRoute } from './route';
import { facadeContext, facadeHandler, type FacadeHandlerDeps } from './handler';
import { sendError } from './errors';
import { buildOpenApiDocument, openApiPath } from './openapi';
import { passengerRoutes } from './passengers.routes';
import { timelineRoutes } from './timeline.routes';
import { templateDoc } from './upload.doc';
import { templateHandler, uploadRoutes } from './upload.routes';
import type { Config } from '../src/config';

/** Every legacy route, in the order the contract lists them (plus FullCalendar's resources feed and the list read-back). */
export function facadeRoutes(config: Config): AnyFacadeRoute[] {
  return [...timelineRoutes, ...uploadRoutes(config), ...passengerRoutes(config)];
}

export const FACADE_BASE_PATH = '/api/broker/v0';

/** The template's path below the base, as the GraphQL `passengerTemplateUrl` announces it. */
const TEMPLATE_PATH = PASSENGER_TEMPLATE_PATH.slice(FACADE_BASE_PATH.length);

/** 405 with Allow, naming the path as the client requested it (not the route's pattern, `:flight_id`). */
function methodNotAllowed(methods: string[]): RequestHandler {
  // Express answers HEAD wherever it answers GET.
  const allow = methods.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])).join(', ');
  return (req, res) => {
    const path = req.originalUrl.split('?', 1)[0];
    sendError(res, new AppError(ErrorCode.METHOD_NOT_ALLOWED, `${req.method} is not allowed on ${path}: use ${methods.join(' or ')}`, { headers: { Allow: allow } }));
  };
}

/** The REST facade: the route table, 405 with Allow for known paths, a JSON 404 for the rest. */
export function createFacadeRouter(deps: FacadeHandlerDeps & { config: Config; publicBaseUrl(req: Request): string }): Router {
  const router = Router();
  const methodsByPath = new Map<string, string[]>();
  const register = (route: AnyFacadeRoute) => {
    router[route.method === 'GET' ? 'get' : 'post'](route.path, facadeContext(deps, route), ...(route.middleware ?? []), facadeHandler(route, deps));
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  };
  // The timeline's routes first: the most frequent requests pass no other layer on their way.
  timelineRoutes.forEach(register);

  // Built on first request: its schemas come from the GraphQL schema, which is built asynchronously.
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  router.get('/openapi.json', (req, res, next) => {
    document ??= buildOpenApiDocument([...facadeRoutes(deps.config), { method: 'GET', path: TEMPLATE_PATH, doc: templateDoc }]);
    document.then((built) => res.json({ ...built, servers: [{ url: `${deps.publicBaseUrl(req)}${FACADE_BASE_PATH}` }] }), next);
  });
  router.all('/openapi.json', methodNotAllowed(['GET']));

  // The index: what a client finds at the base address, derived from the route table.
  const routes = [
    ...facadeRoutes(deps.config).map((route) => ({ method: route.method, path: openApiPath(route.path), operation: getOperationAST(route.operation)?.name?.value ?? null, scope: route.doc.scope })),
    { method: 'GET', path: TEMPLATE_PATH, operation: null, scope: templateDoc.scope },
    { method: 'GET', path: '/openapi.json', operation: null, scope: null },
  ].map((route) => ({ ...route, path: `${FACADE_BASE_PATH}${route.path}` }));
  router.get('/', (req, res) => {
    const base = `${deps.publicBaseUrl(req)}${FACADE_BASE_PATH}`;
    res.json({ name: 'broker flight gateway: legacy REST facade', version: 'v0', openapi: `${base}/openapi.json`, contract: 'broker-interface-v0 (docs/contract/broker-interface-v0.md)', routes });
  });
  router.all('/', methodNotAllowed(['GET']));

  // Static content, registered before `/upload/:id` so that path never takes it for a flight id.
  router.get(TEMPLATE_PATH, templateHandler);
  router.all(TEMPLATE_PATH, methodNotAllowed(['GET']));

  facadeRoutes(deps.config)
    .filter((route) => !(timelineRoutes as readonly AnyFacadeRoute[]).includes(route))
    .forEach(register);
  for (const [path, methods] of methodsByPath) router.all(path, methodNotAllowed(methods));
  router.use((req, res) => sendError(res, notFound(`No route ${req.method} ${FACADE_BASE_PATH}${req.path}`)));
  return router;
}
