import type { RecordCheck } from './dns-records'

/**
 * Which DKIM key of a domain signs, as a pure reducer over the events that change it.
 *
 * Invariant: `signingKey` only ever names a key whose record a check found published and matching.
 * A new domain's first key signs nothing until its record verifies. `rotate` adds a pending key under
 * a new selector; the active key keeps signing until the pending key's record verifies, then the
 * pending key takes over in the same step, so there is no moment without a verified signer. The
 * replaced key stays listed as retired: mail it signed may still be verified by receivers (queued,
 * forwarded, re-checked), so its record may only be removed a week later.
 *
 * An active key whose record stops verifying keeps signing after one bad check (a DNS blip must not
 * stop a tenant's mail) and stops after two consecutive ones: mail is then held, never sent unsigned.
 * Lookups that fail (timeouts) are inconclusive and count neither way.
 */
export interface DkimKey {
  selector: string
  createdAt: Date
}

export interface RetiredDkimKey {
  selector: string
  retiredAt: Date
  /** The record can be deleted from DNS from then on. */
  removableAt: Date
}

export interface DkimRotationState {
  /** Signs mail; null until the domain's first record verifies. */
  active: DkimKey | null
  /** A new key waiting for its record to verify; never signs until then. */
  pending: DkimKey | null
  retired: readonly RetiredDkimKey[]
  /** Consecutive checks that found the active key's record missing or wrong. */
  activeFailedChecks: number
}

export type RotationEvent =
  | { type: 'rotate'; selector: string }
  | { type: 'cancel-rotation' }
  | { type: 'record-checked'; selector: string; check: RecordCheck }
  /** Forgets retired keys whose removal date has passed. */
  | { type: 'prune-retired' }

export type RotationTransition = { ok: true; state: DkimRotationState } | { ok: false; reason: string }

export type RotationPhase = 'awaiting-first-record' | 'active' | 'rotating' | 'held'

export const RETIRED_RECORD_KEPT_MS = 7 * 24 * 60 * 60 * 1000
/** Consecutive failed checks of the active record after which signing (and sending) stops. */
export const FAILED_CHECKS_TO_HOLD = 2

export function initialRotationState(selector: string, now: Date): DkimRotationState {
  return { active: null, pending: { selector, createdAt: now }, retired: [], activeFailedChecks: 0 }
}

export function nextRotationState(
  state: DkimRotationState,
  event: RotationEvent,
  now: Date,
): RotationTransition {
  switch (event.type) {
    case 'rotate':
      return rotate(state, event.selector, now)
    case 'cancel-rotation':
      if (state.pending === null) return { ok: false, reason: 'no key rotation is in progress' }
      if (state.active === null) return { ok: false, reason: "the domain's first key cannot be cancelled" }
      return { ok: true, state: { ...state, pending: null } }
    case 'record-checked':
      return { ok: true, state: recordChecked(state, event.selector, event.check, now) }
    case 'prune-retired':
      return {
        ok: true,
        state: {
          ...state,
          retired: state.retired.filter((key) => key.removableAt.getTime() > now.getTime()),
        },
      }
  }
}

/** The selector to sign with now, or null: mail must then be held, never sent unsigned. */
export function signingKey(state: DkimRotationState): string | null {
  if (state.active === null || state.activeFailedChecks >= FAILED_CHECKS_TO_HOLD) return null
  return state.active.selector
}

export function rotationPhase(state: DkimRotationState): RotationPhase {
  if (state.active === null) return 'awaiting-first-record'
  if (signingKey(state) === null) return 'held'
  return state.pending === null ? 'active' : 'rotating'
}

function rotate(state: DkimRotationState, selector: string, now: Date): RotationTransition {
  if (state.active === null) {
    return {
      ok: false,
      reason: "the domain's first DKIM record is not verified yet; verify it before rotating",
    }
  }
  if (state.pending !== null) {
    return { ok: false, reason: `a rotation is already waiting for selector ${state.pending.selector}` }
  }
  // Re-using a selector would replace a published key: mail signed with the old one would stop verifying.
  const used = [state.active.selector, ...state.retired.map((key) => key.selector)]
  if (used.includes(selector)) return { ok: false, reason: `selector ${selector} was already used` }
  return { ok: true, state: { ...state, pending: { selector, createdAt: now } } }
}

function recordChecked(
  state: DkimRotationState,
  selector: string,
  check: RecordCheck,
  now: Date,
): DkimRotationState {
  if (check.inconclusive) return state
  if (state.pending?.selector === selector) {
    return check.status === 'verified' ? promote(state, state.pending, now) : state
  }
  if (state.active?.selector === selector) {
    const activeFailedChecks = check.status === 'verified' ? 0 : state.activeFailedChecks + 1
    return { ...state, activeFailedChecks }
  }
  // Retired or unknown selectors do not decide who signs.
  return state
}

function promote(state: DkimRotationState, next: DkimKey, now: Date): DkimRotationState {
  const retired =
    state.active === null
      ? state.retired
      : [
          ...state.retired,
          {
            selector: state.active.selector,
            retiredAt: now,
            removableAt: new Date(now.getTime() + RETIRED_RECORD_KEPT_MS),
          },
        ]
  return { active: next, pending: null, retired, activeFailedChecks: 0 }
}
