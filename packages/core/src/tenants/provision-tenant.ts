import { createHash } from 'node:crypto'
import { apiKeyPrefix, hashApiKey } from '../api-keys/api-key'
import { platformActorLabel, TENANT_AUDIT_ACTIONS } from '../audit/audit-actions'
import { AppError, validationFailed } from '../errors/app-error'
import { DEFAULT_PLAN_NAME, effectivePlan, type PlanOverrides } from '../plans'
import { checkDomainName } from '../sender-identity/domain-name'
import { addDomain } from '../sender-identity/domains/add-domain'
import { type DomainView, domainView } from '../sender-identity/domains/domain-view'
import type { AddDomainDeps } from '../sender-identity/domains/ports'
import { auditedPlan, definitionOf } from './plan-change'
import type { AdminTenant, PlatformAdmin, TenantAdminDeps, TenantAdminTransaction } from './ports'

/** How long a provisioning's `Idempotency-Key` answers the same tenant (as for messages). */
export const PROVISION_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

/** The name of the key a provisioned tenant starts with. */
export const FIRST_API_KEY_NAME = 'Default key'

export interface ProvisionTenantInput {
  name: string
  /** A plan of the catalog; unset: `standard`. */
  planName?: string | undefined
  /** Fields of the plan set by hand for this tenant. */
  overrides?: PlanOverrides | undefined
  /** Invited as the tenant's owner once the tenant exists. */
  owner?: string | undefined
  /** Added with its DNS records in the tenant's transaction, as `POST /api/v1/domains` adds one. */
  sendingDomain?: string | undefined
  idempotencyKey: string | null
  actor: PlatformAdmin
}

/** The owner's way in: their open invitation, or their membership once they accepted it. */
export interface OwnerInvitation {
  email: string
  invitationId: string | null
  expiresAt: Date | null
  /** True once the invitation was accepted (a replay answers that rather than invite again). */
  member: boolean
}

/** The team's invitations, for the owner (core's `inviteMember` with the platform as the actor). */
export interface OwnerInvitations {
  find(query: { tenantId: string; email: string }): Promise<OwnerInvitation | null>
  invite(input: { tenantId: string; email: string; actor: PlatformAdmin }): Promise<OwnerInvitation>
}

export interface ProvisionTenantDeps extends TenantAdminDeps {
  /** What adding a sending domain takes besides its store (the transaction's) and the clock. */
  domains: Omit<AddDomainDeps, 'store' | 'clock'>
  apiKeys: {
    /** A fresh random key (no idempotency key given). */
    generate(): string
    /**
     * The key of a provisioning with an idempotency key: derived from a server secret, the tenant and
     * the idempotency key, so a retry answers the key the lost answer carried without storing it.
     */
    derive(input: { tenantId: string; idempotencyKey: string }): string
  }
  owners: OwnerInvitations
}

export interface ProvisionedTenant {
  tenant: AdminTenant
  /** Shown once; null on a replay whose key was revoked meanwhile. */
  apiKey: string | null
  owner: OwnerInvitation | null
  sendingDomain: DomainView | null
  /** True when the idempotency key named an earlier provisioning, whose tenant this is. */
  replayed: boolean
}

/**
 * `POST /api/admin/tenants`: the tenant on its plan, its first API key and (optionally) a sending
 * domain commit in one transaction with the platform's audit entry and the tenant's own; the owner is
 * invited after the commit, since the invitation is mail. With an idempotency key, provisionings with
 * that key are serialized and one made in the last 24 hours is answered again instead of making a
 * second tenant — its owner invited if the first call failed before that (a retry completes it) — and
 * the same key with another request is refused (`idempotency_key_reused`).
 */
export async function provisionTenant(
  input: ProvisionTenantInput,
  deps: ProvisionTenantDeps,
): Promise<ProvisionedTenant> {
  const planName = input.planName ?? DEFAULT_PLAN_NAME
  const definition = definitionOf(deps.plans, planName)
  const domainName = input.sendingDomain === undefined ? undefined : checkedDomain(input.sendingDomain)
  const requestHash = hashRequest({ ...input, planName, sendingDomain: domainName })
  const made = await deps.store.transaction(async (tx) => {
    if (input.idempotencyKey !== null) {
      await tx.lockIdempotencyKey(input.idempotencyKey)
      const since = new Date(deps.clock.now().getTime() - PROVISION_IDEMPOTENCY_TTL_MS)
      const earlier = await tx.findProvisioned({ idempotencyKey: input.idempotencyKey, since })
      if (earlier) return replay(tx, earlier, { ...input, requestHash, domainName }, deps)
    }
    const planOverrides = input.overrides ?? {}
    const tenant = await tx.insertTenant({
      name: input.name,
      planName,
      planOverrides,
      plan: effectivePlan(definition, planOverrides),
    })
    const apiKey =
      input.idempotencyKey === null
        ? deps.apiKeys.generate()
        : deps.apiKeys.derive({ tenantId: tenant.id, idempotencyKey: input.idempotencyKey })
    const key = await tx.insertApiKey({
      tenantId: tenant.id,
      name: FIRST_API_KEY_NAME,
      prefix: apiKeyPrefix(apiKey),
      keyHash: hashApiKey(apiKey),
    })
    await tx.adminAudit({
      actor: input.actor.label,
      action: 'tenant.create',
      targetType: 'tenant',
      targetId: tenant.id,
      details: {
        name: tenant.name,
        ...auditedPlan(tenant),
        owner: input.owner ?? null,
        sendingDomain: domainName ?? null,
        idempotencyKey: input.idempotencyKey,
        requestHash,
      },
    })
    await tx.tenantAudit(
      { tenantId: tenant.id },
      {
        actor: platformActorLabel(input.actor.label),
        action: TENANT_AUDIT_ACTIONS.apiKeyCreate,
        targetType: 'api_key',
        targetId: key.id,
        details: { name: FIRST_API_KEY_NAME, prefix: apiKeyPrefix(apiKey) },
        ipAddress: input.actor.ipAddress,
      },
    )
    const sendingDomain =
      domainName === undefined ? null : await addSendingDomain(tx, tenant.id, domainName, input.actor, deps)
    return { tenant, apiKey, sendingDomain, replayed: false }
  })
  const owner =
    input.owner === undefined ? null : await inviteOwner(made.tenant.id, input.owner, input.actor, deps)
  return { ...made, owner }
}

async function replay(
  tx: TenantAdminTransaction,
  earlier: { tenantId: string; requestHash: string },
  input: ProvisionTenantInput & { requestHash: string; domainName: string | undefined },
  deps: ProvisionTenantDeps,
): Promise<Omit<ProvisionedTenant, 'owner'>> {
  if (earlier.requestHash !== input.requestHash) {
    throw new AppError(
      'idempotency_key_reused',
      'This Idempotency-Key was used in the last 24 hours to provision a tenant with another request; use a new key for a new tenant',
    )
  }
  const tenant = await tx.lockTenant({ tenantId: earlier.tenantId })
  if (!tenant) {
    throw new AppError(
      'conflict',
      'The tenant this Idempotency-Key provisioned no longer exists; use a new key',
    )
  }
  const derived = deps.apiKeys.derive({ tenantId: tenant.id, idempotencyKey: input.idempotencyKey as string })
  const apiKey = (await tx.hasActiveApiKey({ tenantId: tenant.id, keyHash: hashApiKey(derived) }))
    ? derived
    : null
  let sendingDomain: DomainView | null = null
  if (input.domainName !== undefined) {
    const found = (await tx.domains.listDomains({ tenantId: tenant.id })).find(
      (d) => d.name === input.domainName,
    )
    sendingDomain = found ? domainView(found, deps.domains.settings) : null
  }
  return { tenant, apiKey, sendingDomain, replayed: true }
}

function checkedDomain(name: string): string {
  const checked = checkDomainName(name)
  if (!checked.ok) throw validationFailed([{ path: 'sendingDomain', message: checked.message }])
  return checked.name
}

async function addSendingDomain(
  tx: TenantAdminTransaction,
  tenantId: string,
  name: string,
  actor: PlatformAdmin,
  deps: ProvisionTenantDeps,
): Promise<DomainView> {
  try {
    return await addDomain(
      {
        tenantId,
        name,
        audit: (domain) => ({
          actor: { userId: null, label: platformActorLabel(actor.label), ipAddress: actor.ipAddress },
          action: TENANT_AUDIT_ACTIONS.domainAdd,
          targetType: 'domain',
          targetId: domain.id,
          details: { name: domain.name },
        }),
      },
      { ...deps.domains, store: tx.domains, clock: deps.clock },
    )
  } catch (error) {
    // The domain use case names its own body's field; here the field is `sendingDomain`.
    if (error instanceof AppError && error.details) {
      throw new AppError(error.code, error.message, {
        details: error.details.map((issue) => ({
          ...issue,
          path: issue.path === 'name' ? 'sendingDomain' : issue.path,
        })),
        cause: error,
      })
    }
    throw error
  }
}

async function inviteOwner(
  tenantId: string,
  email: string,
  actor: PlatformAdmin,
  deps: ProvisionTenantDeps,
): Promise<OwnerInvitation> {
  const existing = await deps.owners.find({ tenantId, email })
  return existing ?? deps.owners.invite({ tenantId, email, actor })
}

/** SHA-256 of the request as parsed, its object keys sorted, so key order and spacing do not matter. */
export function hashRequest(input: ProvisionTenantInput): string {
  const request = {
    name: input.name,
    planName: input.planName ?? DEFAULT_PLAN_NAME,
    overrides: input.overrides ?? {},
    owner: input.owner ?? null,
    sendingDomain: input.sendingDomain ?? null,
  }
  return createHash('sha256').update(stableJson(request)).digest('hex')
}

function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`
}
