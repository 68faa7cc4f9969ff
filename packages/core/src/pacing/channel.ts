/**
 * `NOTIFY` on this channel when a transaction commits new pending bulk mail (a campaign's dispatch
 * batch): the pacer's leader, in whichever process holds the lease, LISTENs and ticks at once rather
 * than at its next interval. Its interval stays the fallback (LISTEN unavailable, a lost notice).
 */
export const PACER_CHANNEL = 'fairlane_pacer'
