import { z } from 'zod'

const planField = (what: string, max: number) =>
  z
    .number(`must be a whole number (${what})`)
    .int(`must be a whole number (${what})`)
    .min(1, 'must be at least 1')
    .max(max, `must be at most ${max}`)

/** A tenant's plan; every field optional so a PATCH may change one (a new tenant takes the defaults). */
export const planInput = z.strictObject({
  ratePerSec: planField('messages per second', 100_000).optional(),
  burst: planField('messages', 1_000_000).optional(),
  weight: planField('share of spare capacity', 1_000).optional(),
})
