import { Router } from 'express';
import type { Database } from '../db/database';

/**
 * Liveness (the process answers) and readiness: the process is not stopping, the database is not
 * known to be down and answers a ping. A stopping process answers 503 at once, so a proxy stops
 * sending it new requests while it still serves those that come (SHUTDOWN_GRACE_MS).
 */
export function healthRouter(database: Pick<Database, 'isReachable' | 'kind' | 'health'>, stopping: () => boolean): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    if (stopping()) {
      res.status(503).json({ status: 'stopping', database: { kind: database.kind } });
      return;
    }
    const reachable = await database.isReachable();
    res.status(reachable ? 200 : 503).json({
      status: reachable ? 'ready' : 'unavailable',
      // knownDown: data requests answer 503 at once (the driver's checks fail), not after a time-out.
      database: { kind: database.kind, reachable, knownDown: database.health.knownDown },
    });
  });
  return router;
}
