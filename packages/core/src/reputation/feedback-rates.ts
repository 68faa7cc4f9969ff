/**
 * A tenant's bounce and complaint rates, as mailbox providers judge a sender: hard bounces over
 * mail sent, complaints over mail sent, in a window of 24 hours. Above 5 % bounces or 0.1 %
 * complaints a provider starts to throttle or block the sender — and the platform's shared IPs with it
 * — so the admin console flags the tenant and `fairlane_tenant_bounce_rate` lets an alert fire first.
 */
export const FEEDBACK_WINDOW_HOURS = 24

export const FEEDBACK_THRESHOLDS = {
  /** Hard bounces / sent above this flags the tenant. */
  bounceRate: 0.05,
  /** Complaints / sent above this flags the tenant. */
  complaintRate: 0.001,
  /**
   * Below this many sends in the window a rate says little (1 bounce of 2 mails is 50 %): the rates
   * are shown, but the tenant is not flagged.
   */
  minSent: 100,
} as const

export interface FeedbackCounts {
  /** Messages the next hop accepted (`sent` events) in the window. */
  sent: number
  /** Hard bounces (`bounced` events with `kind: hard`) that arrived in the window. */
  hardBounces: number
  /** Complaint reports (`complained` events) that arrived in the window. */
  complaints: number
}

export type FeedbackFlag = 'bounces' | 'complaints'

export interface FeedbackRates extends FeedbackCounts {
  /** Null when nothing was sent in the window (no rate to speak of). */
  bounceRate: number | null
  complaintRate: number | null
  /** Which threshold the tenant is above (only with at least `minSent` sends). */
  flags: FeedbackFlag[]
}

/**
 * The rates of one tenant's window. A bounce arrives minutes or days after its mail was sent, so a
 * window's bounces may belong to mail sent before it: the rate is the providers' approximation
 * (what came back lately over what went out lately), which is what they act on, not an exact ratio
 * per message. It can therefore exceed 1 for a tenant that stopped sending.
 */
export function rateFeedback(counts: FeedbackCounts): FeedbackRates {
  const bounceRate = counts.sent > 0 ? counts.hardBounces / counts.sent : null
  const complaintRate = counts.sent > 0 ? counts.complaints / counts.sent : null
  const judged = counts.sent >= FEEDBACK_THRESHOLDS.minSent
  const flags: FeedbackFlag[] = []
  if (judged && bounceRate !== null && bounceRate > FEEDBACK_THRESHOLDS.bounceRate) flags.push('bounces')
  if (judged && complaintRate !== null && complaintRate > FEEDBACK_THRESHOLDS.complaintRate) {
    flags.push('complaints')
  }
  return { ...counts, bounceRate, complaintRate, flags }
}

/**
 * How close to a threshold a tenant is (1 = at one), the larger of the two: the admin console lists
 * and the metrics keep the worst tenants first.
 */
export function feedbackSeverity(rates: Pick<FeedbackRates, 'bounceRate' | 'complaintRate'>): number {
  return Math.max(
    (rates.bounceRate ?? 0) / FEEDBACK_THRESHOLDS.bounceRate,
    (rates.complaintRate ?? 0) / FEEDBACK_THRESHOLDS.complaintRate,
  )
}
