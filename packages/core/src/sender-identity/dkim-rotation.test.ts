import { describe, expect, it } from 'vitest'
import {
  type DkimRotationState,
  initialRotationState,
  nextRotationState,
  RETIRED_RECORD_KEPT_MS,
  type RotationEvent,
  rotationPhase,
  signingKey,
} from './dkim-rotation'
import type { RecordCheck } from './dns-records'

const t0 = new Date('2026-12-01T10:00:00Z')
const later = (ms: number) => new Date(t0.getTime() + ms)
const verified: RecordCheck = { status: 'verified', reason: 'matches' }
const missing: RecordCheck = { status: 'pending', reason: 'no TXT record found' }
const wrong: RecordCheck = { status: 'failed', reason: 'a different DKIM key' }
const timedOut: RecordCheck = { status: 'pending', reason: 'lookup timed out', inconclusive: true }

function step(state: DkimRotationState, event: RotationEvent, now = t0): DkimRotationState {
  const transition = nextRotationState(state, event, now)
  if (!transition.ok) throw new Error(`refused: ${transition.reason}`)
  return transition.state
}

function refusal(state: DkimRotationState, event: RotationEvent): string {
  const transition = nextRotationState(state, event, t0)
  if (transition.ok) throw new Error('expected a refusal')
  return transition.reason
}

const checked = (selector: string, check: RecordCheck): RotationEvent => ({
  type: 'record-checked',
  selector,
  check,
})

/** A domain whose first key `s1` verified. */
function activeDomain(): DkimRotationState {
  return step(initialRotationState('s1', t0), checked('s1', verified))
}

describe('DKIM rotation: the first key', () => {
  it('signs nothing until its record verifies', () => {
    let state = initialRotationState('s1', t0)
    expect(signingKey(state)).toBeNull()
    expect(rotationPhase(state)).toBe('awaiting-first-record')
    for (const check of [missing, wrong, timedOut]) {
      state = step(state, checked('s1', check))
      expect(signingKey(state)).toBeNull()
    }
    state = step(state, checked('s1', verified))
    expect(signingKey(state)).toBe('s1')
    expect(rotationPhase(state)).toBe('active')
    expect(state.retired).toEqual([])
  })

  it('cannot be rotated or cancelled before it verifies', () => {
    const state = initialRotationState('s1', t0)
    expect(refusal(state, { type: 'rotate', selector: 's2' })).toMatch(/first DKIM record is not verified/)
    expect(refusal(state, { type: 'cancel-rotation' })).toMatch(/first key cannot be cancelled/)
  })
})

describe('DKIM rotation: rotating', () => {
  it('keeps signing with the old key while the new record is missing or wrong', () => {
    let state = step(activeDomain(), { type: 'rotate', selector: 's2' }, later(1000))
    expect(state.pending).toEqual({ selector: 's2', createdAt: later(1000) })
    expect(rotationPhase(state)).toBe('rotating')
    for (const check of [missing, wrong, timedOut, missing]) {
      state = step(state, checked('s2', check))
      expect(signingKey(state)).toBe('s1')
    }
  })

  it('switches to the new key when its record verifies and lists the old one as removable a week later', () => {
    const switchedAt = later(60_000)
    let state = step(activeDomain(), { type: 'rotate', selector: 's2' })
    state = step(state, checked('s2', verified), switchedAt)
    expect(signingKey(state)).toBe('s2')
    expect(rotationPhase(state)).toBe('active')
    expect(state.pending).toBeNull()
    expect(state.retired).toEqual([
      {
        selector: 's1',
        retiredAt: switchedAt,
        removableAt: new Date(switchedAt.getTime() + RETIRED_RECORD_KEPT_MS),
      },
    ])
    expect(RETIRED_RECORD_KEPT_MS).toBe(7 * 24 * 3600 * 1000)
  })

  it('refuses a second rotation while one is waiting', () => {
    const state = step(activeDomain(), { type: 'rotate', selector: 's2' })
    expect(refusal(state, { type: 'rotate', selector: 's3' })).toBe(
      'a rotation is already waiting for selector s2',
    )
  })

  it('refuses a selector already used (active or retired): it would replace a published key', () => {
    let state = activeDomain()
    expect(refusal(state, { type: 'rotate', selector: 's1' })).toBe('selector s1 was already used')
    state = step(step(state, { type: 'rotate', selector: 's2' }), checked('s2', verified))
    expect(refusal(state, { type: 'rotate', selector: 's1' })).toBe('selector s1 was already used')
    expect(refusal(state, { type: 'rotate', selector: 's2' })).toBe('selector s2 was already used')
    expect(nextRotationState(state, { type: 'rotate', selector: 's3' }, t0).ok).toBe(true)
  })

  it('can be cancelled: the pending key is dropped and the old key signs on', () => {
    const state = step(step(activeDomain(), { type: 'rotate', selector: 's2' }), { type: 'cancel-rotation' })
    expect(state.pending).toBeNull()
    expect(signingKey(state)).toBe('s1')
    expect(refusal(state, { type: 'cancel-rotation' })).toBe('no key rotation is in progress')
    // A late check of the cancelled selector changes nothing.
    expect(step(state, checked('s2', verified))).toEqual(state)
  })

  it('rotates again after a switch, keeping every retired key listed', () => {
    let state = activeDomain()
    state = step(step(state, { type: 'rotate', selector: 's2' }), checked('s2', verified), later(1))
    state = step(step(state, { type: 'rotate', selector: 's3' }), checked('s3', verified), later(2))
    expect(signingKey(state)).toBe('s3')
    expect(state.retired.map((key) => key.selector)).toEqual(['s1', 's2'])
  })
})

describe('DKIM rotation: the active record disappearing', () => {
  it('keeps signing after one bad check and holds mail after two consecutive ones', () => {
    let state = step(activeDomain(), checked('s1', missing))
    expect(signingKey(state)).toBe('s1')
    state = step(state, checked('s1', wrong))
    expect(signingKey(state)).toBeNull()
    expect(rotationPhase(state)).toBe('held')
  })

  it('does not count failed lookups (timeouts) either way', () => {
    let state = step(activeDomain(), checked('s1', missing))
    state = step(state, checked('s1', timedOut))
    expect(state.activeFailedChecks).toBe(1)
    expect(signingKey(state)).toBe('s1')
  })

  it('needs the two bad checks to be consecutive: a verified check in between resets the count', () => {
    let state = activeDomain()
    for (const check of [missing, verified, missing, verified, wrong])
      state = step(state, checked('s1', check))
    expect(signingKey(state)).toBe('s1')
  })

  it('resumes signing when the record verifies again', () => {
    let state = step(step(activeDomain(), checked('s1', missing)), checked('s1', missing))
    expect(signingKey(state)).toBeNull()
    state = step(state, checked('s1', verified))
    expect(signingKey(state)).toBe('s1')
  })

  it('recovers through a rotation: a held domain signs with the new key once it verifies', () => {
    let state = step(step(activeDomain(), checked('s1', missing)), checked('s1', missing))
    state = step(state, { type: 'rotate', selector: 's2' })
    expect(signingKey(state)).toBeNull()
    state = step(state, checked('s2', verified))
    expect(signingKey(state)).toBe('s2')
  })

  it('ignores checks of retired and unknown selectors', () => {
    const state = step(step(activeDomain(), { type: 'rotate', selector: 's2' }), checked('s2', verified))
    expect(step(state, checked('s1', missing))).toEqual(state)
    expect(step(state, checked('nope', wrong))).toEqual(state)
  })
})

describe('DKIM rotation: pruning retired keys', () => {
  it('forgets a retired key only once its removal date has passed', () => {
    const state = step(step(activeDomain(), { type: 'rotate', selector: 's2' }), checked('s2', verified), t0)
    expect(step(state, { type: 'prune-retired' }, later(RETIRED_RECORD_KEPT_MS - 1)).retired).toHaveLength(1)
    expect(step(state, { type: 'prune-retired' }, later(RETIRED_RECORD_KEPT_MS)).retired).toEqual([])
  })
})

describe('DKIM rotation: the invariant', () => {
  /** Deterministic pseudo-random numbers (mulberry32), so a failure replays. */
  function random(seed: number): () => number {
    let a = seed
    return () => {
      a = (a + 0x6d2b79f5) | 0
      let x = Math.imul(a ^ (a >>> 15), 1 | a)
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
      return ((x ^ (x >>> 14)) >>> 0) / 4294967296
    }
  }

  it('never signs with a key whose record was not verified, nor after two consecutive bad checks', () => {
    const checks = [verified, missing, wrong, timedOut]
    for (let seed = 1; seed <= 200; seed++) {
      const next = random(seed)
      let state = initialRotationState('k0', t0)
      let selectors = 1
      const verifiedSelectors = new Set<string>()
      const badInARow = new Map<string, number>()
      for (let index = 0; index < 60; index++) {
        const roll = next()
        const known = [
          state.active?.selector,
          state.pending?.selector,
          ...state.retired.map((k) => k.selector),
        ]
        const event: RotationEvent =
          roll < 0.15
            ? { type: 'rotate', selector: `k${selectors++}` }
            : roll < 0.2
              ? { type: 'cancel-rotation' }
              : roll < 0.25
                ? { type: 'prune-retired' }
                : {
                    type: 'record-checked',
                    selector: known[Math.floor(next() * known.length)] ?? 'k0',
                    check: checks[Math.floor(next() * checks.length)] as RecordCheck,
                  }
        const transition = nextRotationState(state, event, later(index * 3600_000))
        if (!transition.ok) continue
        if (event.type === 'record-checked' && !event.check.inconclusive) {
          const ok = event.check.status === 'verified'
          if (ok) verifiedSelectors.add(event.selector)
          badInARow.set(event.selector, ok ? 0 : (badInARow.get(event.selector) ?? 0) + 1)
        }
        state = transition.state
        const signer = signingKey(state)
        if (signer !== null) {
          expect(verifiedSelectors.has(signer), `seed ${seed} step ${index}`).toBe(true)
          expect(badInARow.get(signer) ?? 0, `seed ${seed} step ${index}`).toBeLessThan(2)
        }
        // A rotation never leaves a verified domain without a signer unless its own record failed.
        if (state.active !== null && state.activeFailedChecks < 2) expect(signer).toBe(state.active.selector)
      }
    }
  })
})
