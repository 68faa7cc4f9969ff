import { type TrackingKey, verifyTrackingToken } from './token'

/**
 * Hits within this long of the message's send are taken for link scanners (mail security gateways
 * fetch every link and image seconds after delivery): flagged as bots, left out of unique counts.
 */
export const DEFAULT_SCANNER_WINDOW_MS = 5_000

/**
 * Hits of one token within one window of the clock (an hour by default: `TRACKING_REPEAT_WINDOW_MS`)
 * are one event, counted: a reader reloading a mail, an image proxy fetching again, or anyone holding
 * a token and looping on it adds to the first event's `repeats`, not one more event and one more
 * webhook per hit. Postmark keeps a message's first open and a count; an hour keeps a reader's return
 * the next morning visible as an event of its own, while a flood costs one event per hour.
 */
export const DEFAULT_REPEAT_WINDOW_MS = 3_600_000

export interface TrackingHit {
  messageId: string
  now: Date
  /** A send at or after this instant (or none recorded yet) makes the hit a scanner's. */
  scannerSentAfter: Date
  /** The user agent names a known bot (`isbot`). */
  botUserAgent: boolean
  userAgent: string | null
  /**
   * The start of the window `now` falls in (windows of `repeatWindowMs`, from the epoch): of one
   * token's hits in it, bots' and people's apart, the first writes the event and the rest count on it.
   */
  repeatWindowStart: Date
}

/** What the tracking routes need from PostgreSQL (`@fairlane/db/queries/tracking`). */
export interface TrackingStore {
  /**
   * Writes the `opened` event (`{ bot, first, userAgent? }`) — or, when the window already has one
   * for the message (as bot or not), adds to its `repeats` and `lastAt` — and, for the first hit
   * that is not a bot's, `first_opened_at`, in one statement; false when the message does not exist.
   */
  recordOpen(hit: TrackingHit): Promise<boolean>
  /**
   * Finds the link (of the message's own tenant and campaign), writes the `clicked` event (once per
   * link and window, as opens), the link's click counts (every hit) and the first
   * `first_clicked_at`; the link's URL, or null when the message or the link (for that tenant and
   * campaign) does not exist — and then nothing is written.
   */
  recordClick(hit: TrackingHit & { linkId: number }): Promise<string | null>
}

export interface TrackingDeps {
  key: TrackingKey
  store: TrackingStore
  clock: { now(): Date }
  isBotUserAgent(userAgent: string): boolean
  scannerWindowMs: number
  /** `DEFAULT_REPEAT_WINDOW_MS`: TRACKING_REPEAT_WINDOW_MS. */
  repeatWindowMs: number
}

export type TrackingOutcome = { kind: 'not-found' } | { kind: 'opened' } | { kind: 'redirect'; url: string }

/**
 * One hit on a tracking URL. A token that is forged, edited, of the other kind, or names a link that
 * is not its message's tenant's and campaign's is `not-found`, and nothing is written: the redirect
 * only ever goes to the stored URL of the link the token names.
 */
export async function recordTrackingHit(
  input: {
    kind: 'open' | 'click'
    token: string
    userAgent: string | null
    /** Known to be a machine's whatever its user agent says (a HEAD request: a link checker). */
    automated?: boolean
  },
  deps: TrackingDeps,
): Promise<TrackingOutcome> {
  const claims = verifyTrackingToken(input.token, deps.key)
  if (!claims || claims.kind !== input.kind) return { kind: 'not-found' }
  const now = deps.clock.now()
  const userAgent = input.userAgent === null ? null : input.userAgent.slice(0, 512)
  const hit: TrackingHit = {
    messageId: claims.messageId,
    now,
    scannerSentAfter: new Date(now.getTime() - deps.scannerWindowMs),
    // No user agent at all is a script's, not a mail client's.
    botUserAgent:
      input.automated === true || userAgent === null || userAgent === '' || deps.isBotUserAgent(userAgent),
    userAgent,
    repeatWindowStart: repeatWindowStart(now, deps.repeatWindowMs),
  }
  if (claims.kind === 'open') {
    return (await deps.store.recordOpen(hit)) ? { kind: 'opened' } : { kind: 'not-found' }
  }
  const url = await deps.store.recordClick({ ...hit, linkId: claims.linkId })
  return url === null ? { kind: 'not-found' } : { kind: 'redirect', url }
}

/** The start of the `windowMs`-long window (counted from the epoch) that `now` falls in. */
export function repeatWindowStart(now: Date, windowMs: number): Date {
  return new Date(Math.floor(now.getTime() / windowMs) * windowMs)
}
