import type { Clock } from '../accept/ports'
import type { UnsubscribeSource, UnsubscribeStore, UnsubscribeTarget } from './ports'
import { type UnsubscribeKey, verifyUnsubscribeToken } from './token'

export interface UnsubscribeDeps {
  key: UnsubscribeKey
  store: UnsubscribeStore
  clock: Clock
}

export type UnsubscribeOutcome =
  /** A forged, edited or truncated token: nothing was read or changed. */
  | { kind: 'invalid-token' }
  /** Genuine token, but the contact no longer exists: there is nothing left to mail, so it counts as done. */
  | { kind: 'gone' }
  | { kind: 'found'; target: UnsubscribeTarget }

/** For the confirm page: who the token names, without changing anything (a GET must be safe). */
export async function describeUnsubscribe(token: string, deps: UnsubscribeDeps): Promise<UnsubscribeOutcome> {
  const claims = verifyUnsubscribeToken(token, deps.key)
  if (claims === null) return { kind: 'invalid-token' }
  const target = await deps.store.findTarget(claims)
  return target === null ? { kind: 'gone' } : { kind: 'found', target }
}

/**
 * Unsubscribes the contact a token names. Idempotent: a second click (or a mail client's one-click
 * POST followed by the user's click) finds the contact already unsubscribed and keeps the first date
 * (and the first click's `unsubscribed` event).
 */
export async function unsubscribeByToken(
  token: string,
  deps: UnsubscribeDeps,
  source: UnsubscribeSource = 'link',
): Promise<UnsubscribeOutcome> {
  const claims = verifyUnsubscribeToken(token, deps.key)
  if (claims === null) return { kind: 'invalid-token' }
  const target = await deps.store.unsubscribe({ ...claims, now: deps.clock.now(), source })
  return target === null ? { kind: 'gone' } : { kind: 'found', target }
}

/** `j***@example.com`: enough for the owner to recognise, little for someone who found the link. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@')
  if (at <= 0) return '***'
  const local = email.slice(0, at)
  const visible = local.length <= 2 ? local.slice(0, 1) : local.slice(0, 2)
  return `${visible}${'*'.repeat(Math.max(3, local.length - visible.length))}${email.slice(at)}`
}
