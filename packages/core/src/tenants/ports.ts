import type { Clock } from '../accept/ports'
import type { PlanColumns, PlanDefinition, PlanOverrides } from '../plans'
import type { ReputationStage } from '../reputation/guardrails'
import type { DomainStore } from '../sender-identity/domains/ports'

/** The platform admin acting: `admin-token` for the ADMIN_TOKEN bearer, else the admin's email. */
export interface PlatformAdmin {
  label: string
  /** The client address the request came from (the tenant's own audit entry records it). */
  ipAddress: string | null
}

/** A tenant as the platform admin manages it. */
export interface AdminTenant {
  id: string
  name: string
  planName: string
  /** The fields set by hand for this tenant (`plan_overrides`). */
  planOverrides: PlanOverrides
  /** The plan columns in force (the named plan's values with the overrides applied). */
  plan: PlanColumns
  createdAt: Date
  updatedAt: Date
  /** Null while held for approval (SIGNUP_MODE=approve). */
  approvedAt: Date | null
  isPlatform: boolean
  /** MX mode: the dedicated egress pool; null: the shared one. */
  egressPool: string | null
  /** Where the reputation guardrail has the tenant (`checkReputation`), and why. */
  reputation: TenantReputation
}

export interface TenantReputation {
  stage: ReputationStage
  /** The finding in words, or the admin's reason for the last resume; null before any change. */
  reason: string | null
  changedAt: Date | null
  /** The platform admin's last resume: the rates are judged from then on. */
  resumedAt: Date | null
}

/** One entry of the platform's audit log (`admin_audit_log`). */
export interface AdminAuditEntry {
  actor: string
  /** `tenant.create`, `tenant.plan.update`, `tenant.approve`, `tenant.egress_pool.update`. */
  action: string
  targetType: 'tenant'
  targetId: string
  /** Why, in the admin's words (a resume asks for one). */
  reason?: string
  details?: Record<string, unknown>
}

/** One entry of the tenant's own audit log, made by the platform (no user of the tenant). */
export interface TenantSideAuditEntry {
  actor: string
  action: string
  targetType: string
  targetId: string
  reason?: string
  details?: Record<string, unknown>
  ipAddress: string | null
}

/** A provisioning remembered by its `Idempotency-Key`. */
export interface ProvisionRecord {
  tenantId: string
  /** SHA-256 of the request as parsed: the same key with another body is refused. */
  requestHash: string
}

/** What one transaction of the tenant-admin use cases may do; everything commits or nothing does. */
export interface TenantAdminTransaction {
  /** The tenant, its row locked for the rest of the transaction; null when there is none. */
  lockTenant(query: { tenantId: string }): Promise<AdminTenant | null>
  insertTenant(input: {
    name: string
    planName: string
    planOverrides: PlanOverrides
    plan: PlanColumns
  }): Promise<AdminTenant>
  setPlan(input: {
    tenantId: string
    planName: string
    planOverrides: PlanOverrides
    plan: PlanColumns
    now: Date
  }): Promise<AdminTenant>
  approve(input: { tenantId: string; now: Date }): Promise<AdminTenant>
  setEgressPool(input: { tenantId: string; egressPool: string | null; now: Date }): Promise<AdminTenant>
  /**
   * Back to `ok` with the admin's reason, judged afresh from `now` (`reputation_resumed_at`); the
   * tenant's active-set row stamped so the bulk pacer takes it up at its next tick.
   */
  resumeReputation(input: {
    tenantId: string
    /** The stage it leaves (read under the row's lock), for the webhook. */
    from: ReputationStage
    reason: string
    now: Date
  }): Promise<AdminTenant>
  insertApiKey(input: {
    tenantId: string
    name: string
    prefix: string
    keyHash: string
  }): Promise<{ id: string }>
  /** Whether the tenant has a key with this hash that is not revoked. */
  hasActiveApiKey(query: { tenantId: string; keyHash: string }): Promise<boolean>
  adminAudit(entry: AdminAuditEntry): Promise<void>
  tenantAudit(query: { tenantId: string }, entry: TenantSideAuditEntry): Promise<void>
  /**
   * Serializes provisionings that carry the same idempotency key until this transaction ends (a
   * transaction-scoped advisory lock), so a retry racing the first call waits and then finds it.
   */
  lockIdempotencyKey(key: string): Promise<void>
  /** The provisioning made with `key` since `since`, if any (its `tenant.create` audit entry). */
  findProvisioned(query: { idempotencyKey: string; since: Date }): Promise<ProvisionRecord | null>
  /** The sending domains, on this transaction: a domain added while provisioning commits with the tenant. */
  domains: DomainStore
}

export interface TenantAdminStore {
  transaction<T>(work: (tx: TenantAdminTransaction) => Promise<T>): Promise<T>
}

export interface TenantAdminDeps {
  store: TenantAdminStore
  clock: Clock
  /** The named plans in force (`planCatalog(PLANS)`). */
  plans: Readonly<Record<string, PlanDefinition>>
}
