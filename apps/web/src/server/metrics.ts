import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client'

/**
 * The web process's Prometheus registry, served at `GET /api/admin/metrics` (admin only: it names
 * routes and timings, nothing a tenant should read). Default Node metrics plus one counter and one
 * histogram of HTTP answers, labelled by the route table's path (or `next` for pages and everything
 * else Next.js answers), so the label set stays bounded whatever URLs clients send.
 */
export interface WebMetrics {
  registry: Registry
  observeRequest(labels: { method: string; route: string; status: number }, seconds: number): void
}

export function createWebMetrics(): WebMetrics {
  const registry = new Registry()
  registry.setDefaultLabels({ service: 'web' })
  collectDefaultMetrics({ register: registry })
  const registers = [registry]
  const requests = new Counter({
    name: 'fairlane_web_http_requests_total',
    help: 'HTTP requests answered by the web process',
    labelNames: ['method', 'route', 'status'],
    registers,
  })
  const duration = new Histogram({
    name: 'fairlane_web_http_request_duration_seconds',
    help: 'Time from request to the answer being handed to the socket',
    labelNames: ['method', 'route'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  })
  return {
    registry,
    observeRequest({ method, route, status }, seconds) {
      requests.inc({ method, route, status: String(status) })
      duration.observe({ method, route }, seconds)
    },
  }
}
