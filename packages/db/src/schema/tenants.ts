import { sql } from 'drizzle-orm'
import {
  boolean,
  check,
  doublePrecision,
  integer,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { createdAt, oneOf, timestamptz, updatedAt } from './columns'
import { GUARDED_STAGES, type GuardedStage, REPUTATION_STAGES, type ReputationStage } from './literals'

/** A tenant and its bulk plan: the token bucket (`rate_per_sec`, `burst`) and its share of spare capacity. */
export const tenants = pgTable(
  'tenants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    ratePerSec: integer('rate_per_sec').notNull().default(10),
    burst: integer('burst').notNull().default(20),
    weight: integer('weight').notNull().default(1),
    /**
     * The named plan (PLANS) the tenant is on. Its values are copied into the plan columns (the bulk
     * `rate_per_sec`/`burst`/`weight` above, the transactional and quota columns below) when the plan is
     * assigned; `plan_overrides` names the fields the platform admin set by hand for this tenant alone.
     */
    planName: text('plan_name').notNull().default('standard'),
    planOverrides: jsonb('plan_overrides').$type<Record<string, number | null>>().notNull().default({}),
    /** The critical and default lanes' plan (mails/s, burst); null: TRANSACTIONAL_RATE_PER_SEC / _BURST. */
    txRatePerSec: integer('tx_rate_per_sec'),
    txBurst: integer('tx_burst'),
    /** Messages the tenant may have accepted per UTC day / calendar month (UTC); null: no quota. */
    quotaDaily: integer('quota_daily'),
    quotaMonthly: integer('quota_monthly'),
    /** The From of mail that names none (`Name <local@domain>` on a verified domain); null: MAIL_FROM. */
    defaultFrom: text('default_from'),
    defaultReplyTo: text('default_reply_to'),
    /** Whether new campaigns track opens and clicks unless they say otherwise. */
    trackOpens: boolean('track_opens').notNull().default(false),
    trackClicks: boolean('track_clicks').notNull().default(false),
    /** The privacy switch: no pixel and no rewritten link in any of the tenant's mail, whatever a campaign says. */
    trackingDisabled: boolean('tracking_disabled').notNull().default(false),
    /**
     * Fairlane's own tenant: its account mail (verification, password reset, invitations, notices)
     * goes out as this tenant's messages, through the same API use case and lanes as everyone's.
     * At most one; made on first use (`ensurePlatformTenant`).
     */
    isPlatform: boolean('is_platform').notNull().default(false),
    /**
     * When the platform admin let the tenant send; null: held for approval (SIGNUP_MODE=approve).
     * Tenants made before 0019, by the admin API or in another mode are approved when made.
     */
    approvedAt: timestamptz('approved_at').defaultNow(),
    /**
     * MX mode: the egress pool (EGRESS_POOLS) the platform admin pinned the tenant to, its dedicated
     * addresses; null: the default pool (EGRESS_ADDRESSES), shared with every other tenant.
     */
    egressPool: text('egress_pool'),
    /**
     * The reputation guardrail's stage (core `ReputationStage`): `slow` cuts the tenant's bulk weight,
     * `pause` stops its bulk lane until a platform admin resumes it. Set by the `reputation-check`
     * system job from the tenant's rates; `reputation_reason` says which rate, in words.
     */
    reputationStage: text('reputation_stage').$type<ReputationStage>().notNull().default('ok'),
    reputationReason: text('reputation_reason'),
    reputationChangedAt: timestamptz('reputation_changed_at'),
    /** When a platform admin last resumed the tenant: its rates are judged afresh from then on. */
    reputationResumedAt: timestamptz('reputation_resumed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('tenants_rate_per_sec_check', sql`${t.ratePerSec} > 0`),
    check('tenants_burst_check', sql`${t.burst} > 0`),
    check('tenants_weight_check', sql`${t.weight} > 0`),
    check('tenants_tx_rate_check', sql`${t.txRatePerSec} is null or ${t.txRatePerSec} > 0`),
    check('tenants_tx_burst_check', sql`${t.txBurst} is null or ${t.txBurst} > 0`),
    check('tenants_quota_daily_check', sql`${t.quotaDaily} is null or ${t.quotaDaily} >= 0`),
    check('tenants_quota_monthly_check', sql`${t.quotaMonthly} is null or ${t.quotaMonthly} >= 0`),
    uniqueIndex('tenants_platform_unique').on(t.isPlatform).where(sql`${t.isPlatform}`),
    check('tenants_reputation_stage_check', oneOf(t.reputationStage, REPUTATION_STAGES)),
  ],
)

/**
 * The reputation guardrail's thresholds, a row per stage (core `DEFAULT_GUARDRAIL_THRESHOLDS` are
 * the rows migration 0033 writes): data, so the platform can tighten them without a release.
 */
export const reputationThresholds = pgTable(
  'reputation_thresholds',
  {
    stage: text('stage').$type<GuardedStage>().primaryKey(),
    hardBounceRate: doublePrecision('hard_bounce_rate').notNull(),
    complaintRate: doublePrecision('complaint_rate').notNull(),
    minSent: integer('min_sent').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('reputation_thresholds_stage_check', oneOf(t.stage, GUARDED_STAGES)),
    check(
      'reputation_thresholds_rates_check',
      sql`${t.hardBounceRate} > 0 and ${t.hardBounceRate} <= 1 and ${t.complaintRate} > 0 and ${t.complaintRate} <= 1`,
    ),
    check('reputation_thresholds_min_sent_check', sql`${t.minSent} > 0`),
  ],
)

export type Tenant = typeof tenants.$inferSelect
export type NewTenant = typeof tenants.$inferInsert
