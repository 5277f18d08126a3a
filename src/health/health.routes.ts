import { Router } from 'express';
import type { Database } from '../db/database';

/** Liveness (the process answers) and readiness (the database answers a ping). */
export function healthRouter(database: Pick<Database, 'isReachable' | 'kind'>): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const reachable = await database.isReachable();
    res.status(reachable ? 200 : 503).json({
      status: reachable ? 'ready' : 'unavailable',
      database: { kind: database.kind, reachable },
    });
  });
  return router;
}
