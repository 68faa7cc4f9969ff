/**
 * The delivery lanes, in one place: the database's CHECK constraints, the queue names, the
 * per-lane SMTP pools and the metrics all derive from this list.
 * `critical` carries OTP, password-reset and verify-email mail, `default` other API mail, `bulk` campaigns.
 */
export const LANES = ['critical', 'default', 'bulk'] as const
export type Lane = (typeof LANES)[number]

export function isLane(value: string): value is Lane {
  return (LANES as readonly string[]).includes(value)
}
