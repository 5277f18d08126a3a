import { AsyncLocalStorage } from 'node:async_hooks';
import path from 'node:path';
import express, { type Request, type Router } from 'express';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config';

/** Where the offline explorer (GraphiQL from npm, no CDN) is served. */
export const EXPLORER_PATH = '/graphiql';

/*
 * Every file the page loads, from the npm packages installed with the service: brokers' internal
 * networks often block CDNs, where Apollo Sandbox (loaded from Apollo's CDN) cannot start.
 */
const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));
const ASSETS: Record<string, { file: string; type: string }> = {
  'react.production.min.js': { file: path.join(packageDir('react'), 'umd/react.production.min.js'), type: 'text/javascript' },
  'react-dom.production.min.js': { file: path.join(packageDir('react-dom'), 'umd/react-dom.production.min.js'), type: 'text/javascript' },
  'graphiql.min.js': { file: path.join(packageDir('graphiql'), 'graphiql.min.js'), type: 'text/javascript' },
  'graphiql.min.css': { file: path.join(packageDir('graphiql'), 'graphiql.min.css'), type: 'text/css' },
  // graphql-ws's browser build: subscriptions from the explorer, over the same WebSocket clients use.
  'graphql-ws.min.js': { file: path.join(packageDir('graphql-ws'), 'umd/graphql-ws.min.js'), type: 'text/javascript' },
};

/**
 * The page's own script (a file, so the page's CSP needs no inline script): reads the config element
 * and mounts GraphiQL. Queries and mutations go over HTTP; a subscription opens a graphql-ws
 * connection of its own, sending the Headers tab's values as connection_init's payload (where the
 * service reads the token), and closes it when GraphiQL stops listening.
 */
export const EXPLORER_START_SCRIPT = `'use strict';
var config = JSON.parse(document.getElementById('explorer-config').textContent);
var endpoint = new URL(config.endpoint, window.location.href).href;
var httpFetcher = GraphiQL.createFetcher({ url: endpoint });
// The operation GraphiQL runs; just after an edit it may still send the previous document's
// name, so a document of one operation is that operation whatever the name says.
function operationOf(params, opts) {
  var operations = ((opts && opts.documentAST && opts.documentAST.definitions) || []).filter(function (definition) {
    return definition.kind === 'OperationDefinition';
  });
  var named = operations.filter(function (definition) {
    return definition.name && definition.name.value === params.operationName;
  })[0];
  return named || (operations.length === 1 ? operations[0] : undefined);
}
function subscribe(params, operation, headers) {
  var client = graphqlWs.createClient({ url: endpoint.replace(/^http/, 'ws'), connectionParams: headers || {}, retryAttempts: 0, lazy: true });
  var operationName = operation.name ? operation.name.value : undefined;
  var results = client.iterate({ query: params.query, variables: params.variables, operationName: operationName });
  var iterator = {
    next: function () { return results.next(); },
    return: function () {
      var done = results.return ? results.return() : Promise.resolve({ done: true, value: undefined });
      return done.finally(function () { client.dispose(); });
    },
  };
  iterator[Symbol.asyncIterator] = function () { return iterator; };
  return iterator;
}
function fetcher(params, opts) {
  var operation = operationOf(params, opts);
  return operation && operation.operation === 'subscription' ? subscribe(params, operation, opts && opts.headers) : httpFetcher(params, opts);
}
ReactDOM.createRoot(document.getElementById('graphiql')).render(
  React.createElement(GraphiQL, {
    fetcher: fetcher,
    defaultQuery: config.defaultQuery,
    defaultHeaders: config.headers,
    defaultEditorToolsVisibility: 'headers',
    shouldPersistHeaders: false,
  }),
);
`;

const CSP = ["default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self' data:", "connect-src 'self'", "frame-ancestors 'none'"].join('; ');

const defaultQuery = (today = new Date()) => `# The offline explorer of the broker flight gateway (GraphiQL, served by the service itself).
# Every field but passengerTemplateUrl needs "Authorization": "Bearer <token>" under Headers below.
query NextWeek {
  resources { id title }
  flights(start: "${today.toISOString().slice(0, 10)}", end: "${new Date(today.getTime() + 7 * 86_400_000).toISOString().slice(0, 10)}") {
    id
    flightNumber
    departure { icao localTime }
    arrival { icao localTime }
    passengerCount
  }
}
`;

/** What an explorer page offers for `Authorization`, decided per request (see explorerRouter). */
export interface DevTokenOffer {
  /** `Bearer <development token>`, to pre-fill. */
  authorization?: string;
  /** Why the development token is not pre-filled, for the page to say. */
  notice?: string;
}

/** The offer of the /graphql request being answered, for the Sandbox landing page. */
export const landingPageViewer = new AsyncLocalStorage<DevTokenOffer>();

const LOOPBACK = /^(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/**
 * Is `hostname` (a Host header without its port) a name only this machine answers to:
 * localhost, *.localhost (RFC 6761; browsers resolve them to loopback themselves), 127.0.0.0/8
 * or [::1]? A page of another site that rebinds its own name to 127.0.0.1 still sends that name.
 */
export function isLoopbackHost(hostname: string | undefined): boolean {
  if (!hostname) return false;
  const name = hostname.toLowerCase();
  if (name === 'localhost' || /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+localhost$/.test(name)) return true;
  const literal = /^\[(.*)\]$/.exec(name)?.[1];
  if (literal !== undefined) {
    if (!ipaddr.IPv6.isValid(literal)) return false;
    const address = ipaddr.IPv6.parse(literal);
    return address.range() === 'loopback' || (address.isIPv4MappedAddress() && address.toIPv4Address().range() === 'loopback');
  }
  return ipaddr.IPv4.isValidFourPartDecimal(name) && ipaddr.IPv4.parse(name).range() === 'loopback';
}

/**
 * Does every host name the request carries name this machine? The Host header, and the
 * X-Forwarded-Host a proxy adds, whether or not the proxy is trusted: a page of the rebound site
 * is same-origin with it and may add an X-Forwarded-Host of its choosing, but not change Host.
 */
function namedAsLoopback(req: Request): boolean {
  const forwarded = req.get('X-Forwarded-Host');
  const names = [req.get('Host') ?? '', ...(forwarded === undefined ? [] : forwarded.split(','))];
  return names.every((name) => isLoopbackHost(/^(\[[^\]]*\]|[^:]*)(?::\d*)?$/.exec(name.trim())?.[1]));
}

/**
 * The printed development token, offered only to a browser on the same machine that asked for the
 * page under a loopback name: the service binds 0.0.0.0 by default, and a page is no place to hand
 * an all-scope token to the network, nor to another site's page that rebound its name to 127.0.0.1.
 */
function devTokenOffer(req: Request, devToken: string | undefined, config: Config): DevTokenOffer {
  if (!devToken || config.nodeEnv === 'production') return {};
  if (!LOOPBACK.test(req.ip ?? '')) {
    return { notice: 'The development token printed at start-up is filled in only for a browser on the service’s own machine.' };
  }
  if (!namedAsLoopback(req)) {
    return {
      notice:
        'The development token is not filled in: this page was asked for under a name other than localhost, *.localhost, 127.0.0.0/8 or [::1], ' +
        `as another site's page would (DNS rebinding). Open it through http://localhost:${req.socket.localPort ?? ''}/ to have it filled in.`,
    };
  }
  return { authorization: `Bearer ${devToken}` };
}

const escapeJsonForHtml = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

export function renderExplorerPage(options: DevTokenOffer): string {
  const headers = JSON.stringify(options.authorization ? { Authorization: options.authorization } : { Authorization: 'Bearer <token>' }, null, 2);
  const config = { endpoint: 'graphql', headers, defaultQuery: `${options.notice ? `# ${options.notice}\n` : ''}${defaultQuery()}` };
  const asset = (name: string) => `graphiql/assets/${name}`;
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width,initial-scale=1" />
    <title>Broker flight gateway: GraphiQL</title>
    <style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
    <link rel="stylesheet" href="${asset('graphiql.min.css')}" />
  </head>
  <body>
    <noscript>GraphiQL needs JavaScript.</noscript>
    <div id="graphiql">Loading GraphiQL…</div>
    <script type="application/json" id="explorer-config">${escapeJsonForHtml(config)}</script>
    <script src="${asset('react.production.min.js')}"></script>
    <script src="${asset('react-dom.production.min.js')}"></script>
    <script src="${asset('graphiql.min.js')}"></script>
    <script src="${asset('graphql-ws.min.js')}"></script>
    <script src="${asset('start.js')}"></script>
  </body>
</html>
`;
}

/**
 * GraphiQL at /graphiql with its files under /graphiql/assets/, served when introspection is on
 * (the explorer needs it). Also marks each /graphql request with the Authorization value the
 * Sandbox landing page may pre-fill for it.
 */
export function explorerRouter(config: Config, devToken?: string): Router {
  const router = express.Router();
  router.use('/graphql', (req, res, next) => {
    // Only where a token can be offered (development) and only for a page: AsyncLocalStorage puts
    // hooks on every promise once used, a cost data requests should not pay.
    if (req.method !== 'GET' || !req.get('Accept')?.includes('text/html')) {
      next();
      return;
    }
    // The landing page may carry the token: no cache may keep it.
    res.setHeader('Cache-Control', 'no-store');
    const offer = devTokenOffer(req, devToken, config);
    if (offer.authorization || offer.notice) landingPageViewer.run(offer, next);
    else next();
  });
  if (!config.introspection) return router;
  router.get(EXPLORER_PATH, (req, res) => {
    // The page's links are relative (they hold under a PUBLIC_URL path prefix): `/graphiql/` would shift them.
    if (req.path.endsWith('/')) {
      res.redirect(301, `../${EXPLORER_PATH.slice(1)}`);
      return;
    }
    res.setHeader('Content-Security-Policy', CSP);
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(renderExplorerPage(devTokenOffer(req, devToken, config)));
  });
  router.get(`${EXPLORER_PATH}/assets/:name`, (req, res, next) => {
    const name = req.params.name;
    if (name === 'start.js') {
      res.type('text/javascript').setHeader('Cache-Control', 'no-cache');
      res.send(EXPLORER_START_SCRIPT);
      return;
    }
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) {
      next();
      return;
    }
    res.sendFile(asset.file, { headers: { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=86400' } }, (error) => {
      if (error) next(error);
    });
  });
  return router;
}
