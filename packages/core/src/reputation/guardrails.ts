import type { FeedbackCounts } from './feedback-rates'

/**
 * Where a tenant stands with the receivers that judge everyone's shared addresses, mildest first:
 * `warn` tells the tenant and the platform; `slow` cuts the tenant's share of the bulk lane (never
 * its login codes); `pause` stops its bulk lane until a platform admin resumes it (the critical and
 * default lanes keep flowing, its pending rows stay pending).
 */
export const REPUTATION_STAGES = ['ok', 'warn', 'slow', 'pause'] as const
export type ReputationStage = (typeof REPUTATION_STAGES)[number]

/** The stages a threshold can put a tenant in. */
export const GUARDED_STAGES = ['warn', 'slow', 'pause'] as const
export type GuardedStage = (typeof GUARDED_STAGES)[number]

export interface StageThreshold {
  /** Hard bounces / sent at or above this reaches the stage. */
  hardBounceRate: number
  /** Complaints / sent at or above this reaches the stage. */
  complaintRate: number
  /** Below this many sends in a window its rates say too little to act on (1 bounce of 2 mails is 50 %). */
  minSent: number
}

/** A threshold per stage: data (the `reputation_thresholds` table), these its defaults. */
export type GuardrailThresholds = Record<GuardedStage, StageThreshold>

/**
 * Gmail asks senders to stay under 0.1 % complaints and acts from 0.3 %; Amazon SES reviews an
 * account from 5 % bounces and 0.1 % complaints. A shared platform acts earlier than one provider
 * would: every tenant's mail leaves from the same addresses.
 */
export const DEFAULT_GUARDRAIL_THRESHOLDS: GuardrailThresholds = {
  warn: { hardBounceRate: 0.02, complaintRate: 0.0008, minSent: 200 },
  slow: { hardBounceRate: 0.04, complaintRate: 0.0015, minSent: 200 },
  pause: { hardBounceRate: 0.06, complaintRate: 0.003, minSent: 200 },
}

/** The share of its bulk weight a tenant at `slow` keeps (its plan's rate is untouched). */
export const SLOW_WEIGHT_FACTOR = 0.25

/** The windows a tenant is judged over: the last 24 hours and the last 7 days. */
export const REPUTATION_WINDOWS = { day: 24, week: 24 * 7 } as const
export type ReputationWindow = keyof typeof REPUTATION_WINDOWS

export type ReputationSignal = 'hard-bounces' | 'complaints'

/** What put a tenant in its stage: the window, the signal, its rate and the threshold it reached. */
export interface ReputationFinding {
  stage: GuardedStage
  window: ReputationWindow
  signal: ReputationSignal
  rate: number
  threshold: number
  sent: number
}

export interface ReputationAssessment {
  stage: ReputationStage
  /** The worst finding (null at `ok`): the one the stage is explained by. */
  finding: ReputationFinding | null
}

const SEVERITY: Record<ReputationStage, number> = { ok: 0, warn: 1, slow: 2, pause: 3 }

export function isWorse(a: ReputationStage, b: ReputationStage): boolean {
  return SEVERITY[a] > SEVERITY[b]
}

/**
 * The stage a tenant's rates put it in: the worst stage any window reaches with enough sends,
 * explained by that window and signal (bounces before complaints at the same stage, the day before
 * the week). A window below a stage's minimum volume is not judged for that stage.
 */
export function assessReputation(
  windows: Record<ReputationWindow, FeedbackCounts>,
  thresholds: GuardrailThresholds = DEFAULT_GUARDRAIL_THRESHOLDS,
): ReputationAssessment {
  for (const stage of [...GUARDED_STAGES].reverse()) {
    const threshold = thresholds[stage]
    for (const window of ['day', 'week'] as const) {
      const counts = windows[window]
      if (counts.sent < threshold.minSent || counts.sent === 0) continue
      for (const signal of SIGNALS) {
        const rate = signal.count(counts) / counts.sent
        const limit = signal.threshold(threshold)
        if (rate >= limit) {
          return {
            stage,
            finding: { stage, window, signal: signal.name, rate, threshold: limit, sent: counts.sent },
          }
        }
      }
    }
  }
  return { stage: 'ok', finding: null }
}

/** The signals a window is judged by, in the order a finding names them. */
const SIGNALS: ReadonlyArray<{
  name: ReputationSignal
  count(counts: FeedbackCounts): number
  threshold(threshold: StageThreshold): number
}> = [
  { name: 'hard-bounces', count: (counts) => counts.hardBounces, threshold: (t) => t.hardBounceRate },
  { name: 'complaints', count: (counts) => counts.complaints, threshold: (t) => t.complaintRate },
]

/**
 * Where a tenant goes from `current` given what its rates say now. A pause holds until a platform
 * admin resumes the tenant (rates fall once a paused tenant stops sending: that is not a reason to
 * start again); the milder stages follow the rates both ways.
 */
export function nextReputationStage(current: ReputationStage, assessed: ReputationStage): ReputationStage {
  if (current === 'pause') return 'pause'
  return assessed
}

/** One line a person can read: "6.8 % hard bounces over 24 h (1,000 sent; pause at 6 %)". */
export function describeFinding(finding: ReputationFinding): string {
  const percent = (value: number) => `${Number((value * 100).toFixed(2))} %`
  const signal = finding.signal === 'hard-bounces' ? 'hard bounces' : 'complaints'
  const window = finding.window === 'day' ? '24 h' : '7 days'
  return `${percent(finding.rate)} ${signal} over ${window} (${finding.sent.toLocaleString('en-US')} sent; ${finding.stage} at ${percent(finding.threshold)})`
}

/** The bulk weight a tenant has at its stage: cut at `slow` (a weight is positive, and stays so). */
export function weightAtStage(weight: number, stage: ReputationStage): number {
  return stage === 'slow' ? weight * SLOW_WEIGHT_FACTOR : weight
}
