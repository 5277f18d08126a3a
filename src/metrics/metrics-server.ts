import { createServer, type Server } from 'node:http';
import type { Metrics } from './metrics';

/**
 * The metrics alone on a port of their own (METRICS_PORT), without a token: for a scraper on a
 * private network that should not hold a token of the API. GET /metrics only; anything else 404.
 */
export function createMetricsServer(metrics: Metrics): Server {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: the metrics are at GET /metrics\n');
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : body),
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics could not be collected\n'),
    );
  });
  // Scrapes are short; a client that holds a connection open gets nothing more.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  return server;
}
