import { collectDefaultMetrics, Registry } from 'prom-client'

/** The worker's Prometheus registry; lane, tenant and outbox metrics register here as they arrive. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry()
  registry.setDefaultLabels({ service: 'worker' })
  collectDefaultMetrics({ register: registry })
  return registry
}
