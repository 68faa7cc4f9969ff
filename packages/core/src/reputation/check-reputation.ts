import type { FeedbackCounts } from './feedback-rates'
import {
  assessReputation,
  describeFinding,
  type GuardrailThresholds,
  nextReputationStage,
  type ReputationFinding,
  type ReputationStage,
  type ReputationWindow,
} from './guardrails'

/** A tenant the guardrail looks at: its stage now and its counts in each window. */
export interface TenantReputationCounts {
  tenantId: string
  stage: ReputationStage
  windows: Record<ReputationWindow, FeedbackCounts>
}

export interface StageChange {
  tenantId: string
  from: ReputationStage
  to: ReputationStage
  /** The finding in words (`describeFinding`), or why the tenant is back to `ok`. */
  reason: string
  finding: ReputationFinding | null
}

export interface ReputationStore {
  readThresholds(): Promise<GuardrailThresholds>
  /**
   * Every tenant with sends or feedback in the longest window, and every tenant not at `ok`; each
   * window counted from a platform admin's last resume of the tenant at the earliest.
   */
  readCounts(): Promise<TenantReputationCounts[]>
  /**
   * Moves the tenant from `from` to `to` with its reason, on its audit log, in one transaction; false
   * when its stage is no longer `from` (an admin resumed it meanwhile): nothing written.
   */
  changeStage(change: StageChange): Promise<boolean>
  /**
   * Campaigns of paused tenants that are `sending` read `paused` (one whose dispatch ended after the
   * pause); answers how many.
   */
  pauseCampaignsOfPausedTenants(): Promise<number>
}

export interface ReputationLogger {
  warn(fields: Record<string, unknown>, message: string): void
  info(fields: Record<string, unknown>, message: string): void
}

/**
 * One pass of the reputation guardrail (the `reputation-check` system job): every tenant's rates over
 * 24 hours and 7 days against the thresholds; a tenant whose stage they change is moved, with the
 * reason on its audit log. Worse stages are reached as soon as a pass sees them; `warn` and `slow`
 * lift when the rates fall; a `pause` holds until a platform admin resumes the tenant.
 */
export async function checkReputation(deps: {
  store: ReputationStore
  logger: ReputationLogger
}): Promise<{ changes: StageChange[] }> {
  const thresholds = await deps.store.readThresholds()
  const changes: StageChange[] = []
  for (const tenant of await deps.store.readCounts()) {
    const assessed = assessReputation(tenant.windows, thresholds)
    const next = nextReputationStage(tenant.stage, assessed.stage)
    if (next === tenant.stage) continue
    const change: StageChange = {
      tenantId: tenant.tenantId,
      from: tenant.stage,
      to: next,
      reason: assessed.finding
        ? describeFinding(assessed.finding)
        : 'the rates are under every threshold again',
      finding: assessed.finding,
    }
    if (!(await deps.store.changeStage(change))) continue
    changes.push(change)
    const log = next === 'pause' || next === 'slow' ? deps.logger.warn : deps.logger.info
    log.call(
      deps.logger,
      { tenantId: change.tenantId, from: change.from, to: change.to, reason: change.reason },
      'tenant reputation stage changed',
    )
  }
  const pausedCampaigns = await deps.store.pauseCampaignsOfPausedTenants()
  if (pausedCampaigns > 0)
    deps.logger.info({ campaigns: pausedCampaigns }, 'campaigns of paused tenants paused')
  return { changes }
}
