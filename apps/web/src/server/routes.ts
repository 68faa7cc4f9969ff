import type { ApiKeyScope } from '@fairlane/core'
import { listAudit } from './api/admin/audit-log'
import { bulkDiscardDeadLetters, bulkReplayDeadLetters } from './api/admin/bulk-dead-letters'
import { postTenant } from './api/admin/create-tenant'
import { getDeadLetter } from './api/admin/dead-letter-detail'
import { discardDeadLetter } from './api/admin/discard-dead-letter'
import { getFairness } from './api/admin/fairness'
import { getFeedbackRates } from './api/admin/feedback-rates'
import { listDeadLetters } from './api/admin/list-dead-letters'
import { listPlans } from './api/admin/list-plans'
import { listTenants } from './api/admin/list-tenants'
import { getWebMetrics } from './api/admin/metrics'
import { getOverview } from './api/admin/overview'
import { getQueueStats } from './api/admin/queue-stats'
import { getReceivers } from './api/admin/receivers'
import { replayDeadLetter } from './api/admin/replay-dead-letter'
import { getTenantHistory } from './api/admin/tenant-history'
import { patchTenant } from './api/admin/update-tenant'
import { handleAuth } from './api/auth'
import { healthLive, healthReady } from './api/health'
import { getDefaultSender, putDefaultSender } from './api/v1/default-sender'
import {
  deleteDomainById,
  getDomainById,
  getDomains,
  postDomain,
  postDomainRotateDkim,
  postDomainVerify,
} from './api/v1/domains'
import { getCampaign } from './api/v1/get-campaign'
import { getMessage } from './api/v1/get-message'
import { getOpenApiDocument } from './api/v1/get-openapi'
import { postCampaign } from './api/v1/post-campaign'
import { postCampaignCancel } from './api/v1/post-campaign-cancel'
import { postContacts } from './api/v1/post-contacts'
import { postMessage } from './api/v1/post-message'
import { getSegmentById, getSegments, patchSegment, postSegment, removeSegment } from './api/v1/segments'
import {
  deleteSuppression,
  getSuppressions,
  getSuppressionsExport,
  postSuppressions,
  postSuppressionsImport,
} from './api/v1/suppressions'
import {
  deleteInvitation,
  deleteMember,
  getInvitations,
  getMembers,
  patchMember,
  postInvitation,
} from './api/v1/team'
import {
  changeTemplate,
  deleteTemplateByRef,
  getTemplateByRef,
  getTemplates,
  postTemplate,
} from './api/v1/templates'
import {
  getWebhookDeliveries,
  getWebhookDeliveryById,
  postWebhookDeliveriesReplay,
  postWebhookDeliveryReplay,
  postWebhookTest,
} from './api/v1/webhook-deliveries'
import {
  deleteWebhookById,
  getWebhookById,
  getWebhooks,
  patchWebhook,
  postWebhook,
  postWebhookRotateSecret,
} from './api/v1/webhooks'
import { clickRedirect, openPixel } from './tracking/tracking-routes'
import type { WebContainer } from './web-container'

/**
 * The HTTP API's one route table: which handler answers which method and path, and with which of
 * the container's dependencies. It is the only way into `/api/**`: the web entry's fast path
 * (`fast-path/`) answers these routes without Next.js, and any other `/api` path gets a 404 (or a
 * 405 naming the methods its path has) from the entry too; there are no Next.js route files under
 * `src/app/api`. Request body caps per route are in `http/body-limits.ts`.
 *
 * Paths use `:name` for one path segment and a trailing `*name` for one or more.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

type ParamNames<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? Name
    : Path extends `${string}/*${infer Rest}`
      ? Rest
      : never

export type RouteParams<Path extends string> = { [Name in ParamNames<Path>]: string }

/** What handlers may take from the container (a test can pass just these). */
export type RouteDeps = Pick<
  WebContainer,
  'api' | 'admin' | 'database' | 'redis' | 'auth' | 'logger' | 'tracking'
>

export interface ApiRoute<Path extends string = string> {
  method: HttpMethod
  path: Path
  /** `/api/v1` routes only: the API key scope the route needs (`authorizeApiCall` enforces it). */
  scope?: ApiKeyScope
  handle(request: Request, params: RouteParams<Path>, deps: RouteDeps): Response | Promise<Response>
}

const API_V1 = '/api/v1/'

/**
 * A route of the table. Every `/api/v1` route needs a `full` key unless it declares `{ scope:
 * 'sending' }`: its handler is given the scope with its deps (`ApiDeps.requiredScope`), and
 * `authorizeApiCall`, where every `/api/v1` call starts, refuses a key without it. So a new route is
 * closed to sending keys until someone opens it here (`api-key-scopes.int.test.ts` walks them all).
 */
export function route<Path extends string>(
  method: HttpMethod,
  path: Path,
  handle: ApiRoute<Path>['handle'],
  options: { scope?: ApiKeyScope } = {},
): ApiRoute<Path> {
  if (!path.startsWith(API_V1)) return { method, path, handle }
  const scope = options.scope ?? 'full'
  return {
    method,
    path,
    scope,
    handle: (request, params, deps) =>
      handle(request, params, { ...deps, api: { ...deps.api, requiredScope: scope } }),
  }
}

export const API_ROUTES = {
  // Open and click tracking (public; the signed token is the credential): answered here, not by
  // Next.js, because every open of every tracked mail comes this way.
  trackOpen: route('GET', '/t/o/:token', (request, { token }, deps) =>
    openPixel(request, token, deps.tracking),
  ),
  trackClick: route('GET', '/t/c/:token', (request, { token }, deps) =>
    clickRedirect(request, token, deps.tracking),
  ),
  // The two routes a `sending` key may call: send a message, read its status.
  postMessage: route('POST', '/api/v1/messages', (request, _, deps) => postMessage(request, deps.api), {
    scope: 'sending',
  }),
  getMessage: route(
    'GET',
    '/api/v1/messages/:id',
    (request, { id }, deps) => getMessage(request, id, deps.api),
    { scope: 'sending' },
  ),
  postCampaign: route('POST', '/api/v1/campaigns', (request, _, deps) => postCampaign(request, deps.api)),
  getCampaign: route('GET', '/api/v1/campaigns/:id', (request, { id }, deps) =>
    getCampaign(request, id, deps.api),
  ),
  cancelCampaign: route('POST', '/api/v1/campaigns/:id/cancel', (request, { id }, deps) =>
    postCampaignCancel(request, id, deps.api),
  ),
  postContacts: route('POST', '/api/v1/contacts', (request, _, deps) => postContacts(request, deps.api)),
  listSuppressions: route('GET', '/api/v1/suppressions', (request, _, deps) =>
    getSuppressions(request, deps.api),
  ),
  addSuppressions: route('POST', '/api/v1/suppressions', (request, _, deps) =>
    postSuppressions(request, deps.api),
  ),
  removeSuppression: route('DELETE', '/api/v1/suppressions/:email', (request, { email }, deps) =>
    deleteSuppression(request, email, deps.api),
  ),
  // The list as CSV: import (a text/csv body) and export (a download).
  importSuppressions: route('POST', '/api/v1/suppressions/import', (request, _, deps) =>
    postSuppressionsImport(request, deps.api),
  ),
  exportSuppressions: route('GET', '/api/v1/suppressions/export', (request, _, deps) =>
    getSuppressionsExport(request, deps.api),
  ),
  // The tenant's default sender: From / Reply-To of mail that names none.
  getDefaultSender: route('GET', '/api/v1/sender', (request, _, deps) => getDefaultSender(request, deps.api)),
  putDefaultSender: route('PUT', '/api/v1/sender', (request, _, deps) => putDefaultSender(request, deps.api)),
  // The API's OpenAPI document: public, no key (every other /api/v1 route is in it; routes.test.ts checks).
  openApiDocument: route('GET', '/api/v1/openapi.json', (request) => getOpenApiDocument(request)),
  // `:ref` is a template's slug or id.
  listTemplates: route('GET', '/api/v1/templates', (request, _, deps) => getTemplates(request, deps.api)),
  postTemplate: route('POST', '/api/v1/templates', (request, _, deps) => postTemplate(request, deps.api)),
  getTemplate: route('GET', '/api/v1/templates/:ref', (request, { ref }, deps) =>
    getTemplateByRef(request, ref, deps.api),
  ),
  patchTemplate: route('PATCH', '/api/v1/templates/:ref', (request, { ref }, deps) =>
    changeTemplate(request, ref, deps.api, 'patch'),
  ),
  putTemplate: route('PUT', '/api/v1/templates/:ref', (request, { ref }, deps) =>
    changeTemplate(request, ref, deps.api, 'put'),
  ),
  deleteTemplate: route('DELETE', '/api/v1/templates/:ref', (request, { ref }, deps) =>
    deleteTemplateByRef(request, ref, deps.api),
  ),
  listSegments: route('GET', '/api/v1/segments', (request, _, deps) => getSegments(request, deps.api)),
  createSegment: route('POST', '/api/v1/segments', (request, _, deps) => postSegment(request, deps.api)),
  getSegment: route('GET', '/api/v1/segments/:id', (request, { id }, deps) =>
    getSegmentById(request, id, deps.api),
  ),
  renameSegment: route('PATCH', '/api/v1/segments/:id', (request, { id }, deps) =>
    patchSegment(request, id, deps.api),
  ),
  deleteSegment: route('DELETE', '/api/v1/segments/:id', (request, { id }, deps) =>
    removeSegment(request, id, deps.api),
  ),
  listDomains: route('GET', '/api/v1/domains', (request, _, deps) => getDomains(request, deps.api)),
  addDomain: route('POST', '/api/v1/domains', (request, _, deps) => postDomain(request, deps.api)),
  getDomain: route('GET', '/api/v1/domains/:id', (request, { id }, deps) =>
    getDomainById(request, id, deps.api),
  ),
  verifyDomain: route('POST', '/api/v1/domains/:id/verify', (request, { id }, deps) =>
    postDomainVerify(request, id, deps.api),
  ),
  rotateDomainDkim: route('POST', '/api/v1/domains/:id/rotate-dkim', (request, { id }, deps) =>
    postDomainRotateDkim(request, id, deps.api),
  ),
  deleteDomain: route('DELETE', '/api/v1/domains/:id', (request, { id }, deps) =>
    deleteDomainById(request, id, deps.api),
  ),
  listWebhooks: route('GET', '/api/v1/webhooks', (request, _, deps) => getWebhooks(request, deps.api)),
  addWebhook: route('POST', '/api/v1/webhooks', (request, _, deps) => postWebhook(request, deps.api)),
  getWebhook: route('GET', '/api/v1/webhooks/:id', (request, { id }, deps) =>
    getWebhookById(request, id, deps.api),
  ),
  updateWebhook: route('PATCH', '/api/v1/webhooks/:id', (request, { id }, deps) =>
    patchWebhook(request, id, deps.api),
  ),
  deleteWebhook: route('DELETE', '/api/v1/webhooks/:id', (request, { id }, deps) =>
    deleteWebhookById(request, id, deps.api),
  ),
  listWebhookDeliveries: route('GET', '/api/v1/webhooks/:id/deliveries', (request, { id }, deps) =>
    getWebhookDeliveries(request, id, deps.api),
  ),
  replayWebhookDelivery: route(
    'POST',
    '/api/v1/webhooks/:id/deliveries/:deliveryId/replay',
    (request, { id, deliveryId }, deps) => postWebhookDeliveryReplay(request, id, deliveryId, deps.api),
  ),
  // Beyond the contract's rows: the secret's rotation, the test event, a delivery's attempts, bulk replay.
  rotateWebhookSecret: route('POST', '/api/v1/webhooks/:id/rotate-secret', (request, { id }, deps) =>
    postWebhookRotateSecret(request, id, deps.api),
  ),
  testWebhook: route('POST', '/api/v1/webhooks/:id/test', (request, { id }, deps) =>
    postWebhookTest(request, id, deps.api),
  ),
  getWebhookDelivery: route(
    'GET',
    '/api/v1/webhooks/:id/deliveries/:deliveryId',
    (request, { id, deliveryId }, deps) => getWebhookDeliveryById(request, id, deliveryId, deps.api),
  ),
  replayWebhookDeliveries: route('POST', '/api/v1/webhooks/:id/deliveries/replay', (request, { id }, deps) =>
    postWebhookDeliveriesReplay(request, id, deps.api),
  ),
  // better-auth's own endpoints (sign-in, sign-out, session); the pages use server actions instead.
  // The tenant's team (extensions of the contract): members and their roles, invitations by email.
  listMembers: route('GET', '/api/v1/members', (request, _, deps) => getMembers(request, deps.api)),
  changeMemberRole: route('PATCH', '/api/v1/members/:userId', (request, { userId }, deps) =>
    patchMember(request, userId, deps.api),
  ),
  removeMember: route('DELETE', '/api/v1/members/:userId', (request, { userId }, deps) =>
    deleteMember(request, userId, deps.api),
  ),
  listInvitations: route('GET', '/api/v1/invitations', (request, _, deps) =>
    getInvitations(request, deps.api),
  ),
  inviteMember: route('POST', '/api/v1/invitations', (request, _, deps) => postInvitation(request, deps.api)),
  revokeInvitation: route('DELETE', '/api/v1/invitations/:id', (request, { id }, deps) =>
    deleteInvitation(request, id, deps.api),
  ),
  authGet: route('GET', '/api/auth/*path', (request, _, deps) => handleAuth(request, deps)),
  authPost: route('POST', '/api/auth/*path', (request, _, deps) => handleAuth(request, deps)),
  healthLive: route('GET', '/api/health/live', () => healthLive()),
  healthReady: route('GET', '/api/health/ready', (_, __, deps) =>
    healthReady({ sql: deps.database.sql, redis: deps.redis }),
  ),
  createTenant: route('POST', '/api/admin/tenants', (request, _, deps) => postTenant(request, deps.admin)),
  updateTenant: route('PATCH', '/api/admin/tenants/:id', (request, { id }, deps) =>
    patchTenant(request, id, deps.admin),
  ),
  queueStats: route('GET', '/api/admin/queues', (request, _, deps) => getQueueStats(request, deps.admin)),
  listDeadLetters: route('GET', '/api/admin/dlq', (request, _, deps) => listDeadLetters(request, deps.admin)),
  discardDeadLetter: route('DELETE', '/api/admin/dlq/:id', (request, { id }, deps) =>
    discardDeadLetter(request, id, deps.admin),
  ),
  replayDeadLetter: route('POST', '/api/admin/dlq/:id/replay', (request, { id }, deps) =>
    replayDeadLetter(request, id, deps.admin),
  ),
  // The admin console's reads and bulk actions (extensions of the contract's admin API).
  listTenants: route('GET', '/api/admin/tenants', (request, _, deps) => listTenants(request, deps.admin)),
  listPlans: route('GET', '/api/admin/plans', (request, _, deps) => listPlans(request, deps.admin)),
  tenantHistory: route('GET', '/api/admin/tenants/:id/daily', (request, { id }, deps) =>
    getTenantHistory(request, id, deps.admin),
  ),
  overview: route('GET', '/api/admin/overview', (request, _, deps) => getOverview(request, deps.admin)),
  fairness: route('GET', '/api/admin/fairness', (request, _, deps) => getFairness(request, deps.admin)),
  // Bounce and complaint rates per tenant over 24 h, flagged above the providers' thresholds.
  feedbackRates: route('GET', '/api/admin/feedback-rates', (request, _, deps) =>
    getFeedbackRates(request, deps.admin),
  ),
  getDeadLetter: route('GET', '/api/admin/dlq/:id', (request, { id }, deps) =>
    getDeadLetter(request, id, deps.admin),
  ),
  bulkReplayDeadLetters: route('POST', '/api/admin/dlq/replay', (request, _, deps) =>
    bulkReplayDeadLetters(request, deps.admin),
  ),
  bulkDiscardDeadLetters: route('POST', '/api/admin/dlq/discard', (request, _, deps) =>
    bulkDiscardDeadLetters(request, deps.admin),
  ),
  auditLog: route('GET', '/api/admin/audit', (request, _, deps) => listAudit(request, deps.admin)),
  receivers: route('GET', '/api/admin/receivers', (request, _, deps) => getReceivers(request, deps.admin)),
  webMetrics: route('GET', '/api/admin/metrics', (request, _, deps) => getWebMetrics(request, deps.admin)),
}
