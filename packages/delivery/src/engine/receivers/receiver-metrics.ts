import { Counter, Gauge, type Registry } from 'prom-client'

/** The reply classes of `classifyReply` (`@fairlane/delivery/replies/classify`), as the gate observes them. */
export const RECEIVER_REPLY_CLASSES = [
  'accepted',
  'throttle',
  'recipient-temporary',
  'permanent',
  'temporary',
] as const
export type ReceiverReplyClass = (typeof RECEIVER_REPLY_CLASSES)[number]

/** A provider at an egress address and the messages a minute its controller allows now (0: paused). */
export interface ReceiverRateSample {
  provider: string
  egress: string
  ratePerMinute: number
  ceilingPerMinute?: number
  pausedUntil?: string
}

/** How long one read of the receivers serves scrapes (several Prometheus servers, or a quick re-scrape). */
export const RECEIVER_GAUGE_CACHE_MS = 5_000

/**
 * The label a provider gets. Named providers (the rules file's: google, microsoft, …; never a dot)
 * keep their name; a domain that is its own provider is `other`, or every small domain a tenant
 * mails would be a new series.
 */
export function providerLabel(provider: string): string {
  return provider.includes('.') ? 'other' : provider
}

export interface ReceiverMetrics {
  /** One reply from a provider: the receiver gate's `observe` hook calls it on every reply. */
  recordReceiverReply(input: { provider: string; egress: string; replyClass: ReceiverReplyClass }): void
}

/**
 * `fairlane_receiver_replies_total{provider,class}`, counted as replies arrive, and
 * `fairlane_receiver_rate{provider,egress}`, read at scrape time from `receivers` (`listReceivers`
 * of `@fairlane/core/receivers`: the stored states read now, so a pause and the climb back after it
 * show without anything being written). The rate gauge has a series for each named provider and for
 * each domain-named one the controller is holding below its ceiling; a failed read leaves it empty
 * for that scrape and calls `onError`.
 */
export function registerReceiverMetrics(
  registry: Registry,
  options: {
    receivers: () => Promise<ReceiverRateSample[]>
    onError?: (what: string, error: unknown) => void
    cacheMs?: number
  },
): ReceiverMetrics {
  const registers = [registry]
  const replies: Counter<'provider' | 'class'> = new Counter({
    name: 'fairlane_receiver_replies_total',
    help: 'Replies from receiving providers in MX mode, by provider (rules-file name, or other) and class (accepted, throttle, recipient-temporary, permanent, temporary)',
    labelNames: ['provider', 'class'],
    registers,
  })
  const cacheMs = options.cacheMs ?? RECEIVER_GAUGE_CACHE_MS
  let read: { at: number; value: Promise<ReceiverRateSample[]> } | undefined
  const receivers = () => {
    const now = Date.now()
    if (!read || now - read.at >= cacheMs) {
      const entry = { at: now, value: options.receivers() }
      entry.value.catch(() => {
        if (read === entry) read = undefined
      })
      read = entry
    }
    return read.value
  }
  const rate: Gauge<'provider' | 'egress'> = new Gauge({
    name: 'fairlane_receiver_rate',
    help: 'Messages a minute the receiver shaping allows now per provider and egress address (0 while paused), MX mode',
    labelNames: ['provider', 'egress'],
    registers,
    async collect() {
      rate.reset()
      try {
        for (const receiver of await receivers()) {
          const named = !receiver.provider.includes('.')
          const held =
            receiver.pausedUntil !== undefined ||
            (receiver.ceilingPerMinute !== undefined && receiver.ratePerMinute < receiver.ceilingPerMinute)
          if (!named && !held) continue
          rate.set(
            { provider: receiver.provider, egress: receiver.egress || 'default' },
            receiver.ratePerMinute,
          )
        }
      } catch (error) {
        rate.reset()
        options.onError?.('fairlane_receiver_rate', error)
      }
    },
  })
  return {
    recordReceiverReply({ provider, replyClass }) {
      replies.inc({ provider: providerLabel(provider), class: replyClass })
    },
  }
}
