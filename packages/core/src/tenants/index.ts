export { approveTenant, approveTenantIn } from './approve-tenant'
export { type ChangeTenantPlanInput, changeTenantPlan, changeTenantPlanIn } from './change-tenant-plan'
export { deriveApiKey } from './derive-api-key'
export { auditedPlan, definitionOf, nextPlan, type PlanChange } from './plan-change'
export type {
  AdminAuditEntry,
  AdminTenant,
  PlatformAdmin,
  ProvisionRecord,
  TenantAdminDeps,
  TenantAdminStore,
  TenantAdminTransaction,
  TenantReputation,
  TenantSideAuditEntry,
} from './ports'
export {
  FIRST_API_KEY_NAME,
  hashRequest,
  type OwnerInvitation,
  type OwnerInvitations,
  PROVISION_IDEMPOTENCY_TTL_MS,
  type ProvisionedTenant,
  type ProvisionTenantDeps,
  type ProvisionTenantInput,
  provisionTenant,
} from './provision-tenant'
export {
  RESUME_REASON_MAX_LENGTH,
  type ResumeTenantInput,
  resumeTenant,
  resumeTenantIn,
} from './resume-tenant'
export {
  checkEgressPool,
  type EgressPoolDeps,
  type SetEgressPoolInput,
  setTenantEgressPool,
  setTenantEgressPoolIn,
} from './set-tenant-egress-pool'
export { type UpdateTenantInput, updateTenant } from './update-tenant'
