import { healthLive, healthReady } from '../health'
import { declareRoute } from './define'

/** Liveness and readiness, for probes and load balancers. */
export const healthRoutes = {
  healthLive: declareRoute({
    method: 'GET',
    path: '/api/health/live',
    bodyLimit: 'api',
    handle: () => healthLive(),
  }),
  healthReady: declareRoute({
    method: 'GET',
    path: '/api/health/ready',
    bodyLimit: 'api',
    handle: (_, __, deps) => healthReady({ sql: deps.database.sql, redis: deps.redis }),
  }),
}
