import { listAudit } from '../admin/audit-log'
import { getFairness } from '../admin/fairness'
import { getFeedbackRates } from '../admin/feedback-rates'
import { getWebMetrics } from '../admin/metrics'
import { getOverview } from '../admin/overview'
import { getQueueStats } from '../admin/queue-stats'
import { getReceivers } from '../admin/receivers'
import { getReputation } from '../admin/reputation'
import { declareRoute } from './define'

/** The admin console's reads (extensions of the contract's admin API). */
export const adminConsoleRoutes = {
  queueStats: declareRoute({
    method: 'GET',
    path: '/api/admin/queues',
    bodyLimit: 'api',
    handle: (request, _, deps) => getQueueStats(request, deps.admin),
  }),
  overview: declareRoute({
    method: 'GET',
    path: '/api/admin/overview',
    bodyLimit: 'api',
    handle: (request, _, deps) => getOverview(request, deps.admin),
  }),
  fairness: declareRoute({
    method: 'GET',
    path: '/api/admin/fairness',
    bodyLimit: 'api',
    handle: (request, _, deps) => getFairness(request, deps.admin),
  }),
  // Bounce and complaint rates per tenant over 24 h, flagged above the providers' thresholds.
  // The reputation guardrail: its thresholds and the tenants it warned, slowed or paused.
  reputation: declareRoute({
    method: 'GET',
    path: '/api/admin/reputation',
    bodyLimit: 'api',
    handle: (request, _, deps) => getReputation(request, deps.admin),
  }),
  feedbackRates: declareRoute({
    method: 'GET',
    path: '/api/admin/feedback-rates',
    bodyLimit: 'api',
    handle: (request, _, deps) => getFeedbackRates(request, deps.admin),
  }),
  auditLog: declareRoute({
    method: 'GET',
    path: '/api/admin/audit',
    bodyLimit: 'api',
    handle: (request, _, deps) => listAudit(request, deps.admin),
  }),
  receivers: declareRoute({
    method: 'GET',
    path: '/api/admin/receivers',
    bodyLimit: 'api',
    handle: (request, _, deps) => getReceivers(request, deps.admin),
  }),
  webMetrics: declareRoute({
    method: 'GET',
    path: '/api/admin/metrics',
    bodyLimit: 'api',
    handle: (request, _, deps) => getWebMetrics(request, deps.admin),
  }),
}
