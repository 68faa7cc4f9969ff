import { postTenant } from '../admin/create-tenant'
import { listPlans } from '../admin/list-plans'
import { listTenants } from '../admin/list-tenants'
import { postResumeTenant } from '../admin/resume-tenant'
import { getTenantHistory } from '../admin/tenant-history'
import { getTenantUsage } from '../admin/tenant-usage'
import { patchTenant } from '../admin/update-tenant'
import { declareRoute } from './define'

/** The platform admin's tenants: provision, change, list, their plans, and a tenant's daily history. */
export const adminTenantRoutes = {
  createTenant: declareRoute({
    method: 'POST',
    path: '/api/admin/tenants',
    bodyLimit: 'api',
    handle: (request, _, deps) => postTenant(request, deps.admin),
  }),
  updateTenant: declareRoute({
    method: 'PATCH',
    path: '/api/admin/tenants/:id',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => patchTenant(request, id, deps.admin),
  }),
  // The reputation guardrail's pause (or slow) lifted by the platform admin, with a reason, audited.
  resumeTenant: declareRoute({
    method: 'POST',
    path: '/api/admin/tenants/:id/resume',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => postResumeTenant(request, id, deps.admin),
  }),
  listTenants: declareRoute({
    method: 'GET',
    path: '/api/admin/tenants',
    bodyLimit: 'api',
    handle: (request, _, deps) => listTenants(request, deps.admin),
  }),
  // The named plans in force (PLANS), for the console's plan editor.
  listPlans: declareRoute({
    method: 'GET',
    path: '/api/admin/plans',
    bodyLimit: 'api',
    handle: (request, _, deps) => listPlans(request, deps.admin),
  }),
  tenantHistory: declareRoute({
    method: 'GET',
    path: '/api/admin/tenants/:id/daily',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => getTenantHistory(request, id, deps.admin),
  }),
  // The tenant's usage report, as its own GET /api/v1/usage answers it (accepted, outcomes, quotas).
  tenantUsage: declareRoute({
    method: 'GET',
    path: '/api/admin/tenants/:id/usage',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => getTenantUsage(request, id, deps.admin),
  }),
}
