/**
 * An endpoint that times out or refuses connections is parked: its deliveries wait in PostgreSQL and
 * only one probe goes out when the park ends, so a dead endpoint costs the webhook lane one request
 * per park instead of its whole concurrency cap for every timeout. Each park that follows a failed
 * probe lasts twice the one before, up to `maxMs`; a success ends it and resets the level.
 */
export interface ParkSettings {
  /** The first park's length. */
  baseMs: number
  maxMs: number
}

export const DEFAULT_PARK_SETTINGS: ParkSettings = { baseMs: 5_000, maxMs: 10 * 60_000 }

/** The failures that say "nobody is answering", as opposed to an answer we did not like. */
export const PARKING_FAILURES = ['timeout', 'connection'] as const

/** How long the park of `level` (1 = the first) lasts; jittered by up to −20 % so probes spread out. */
export function parkMs(
  level: number,
  settings: ParkSettings = DEFAULT_PARK_SETTINGS,
  random: () => number = Math.random,
): number {
  if (!Number.isInteger(level) || level < 1) throw new RangeError(`level must be ≥ 1, got ${level}`)
  const full = Math.min(settings.maxMs, settings.baseMs * 2 ** Math.min(level - 1, 30))
  return Math.round(full * (1 - random() * 0.2))
}
