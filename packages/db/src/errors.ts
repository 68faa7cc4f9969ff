/**
 * The SQLSTATE (or Node error code) of an error thrown by postgres.js, if any, also when drizzle
 * wrapped it (its `DrizzleQueryError` keeps postgres.js's error as `cause`).
 */
export function pgErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  if ('code' in error && typeof error.code === 'string') return error.code
  return 'cause' in error ? pgErrorCode(error.cause) : undefined
}

const DEADLOCK_DETECTED = '40P01'

/**
 * Runs `transaction` again when PostgreSQL aborted it as a deadlock's victim (up to `attempts` runs).
 * For a transaction that must lock rows in an order another path locks the other way round (a
 * campaign, then its messages; a send's completion, messages then the campaign): the victim rolled
 * back whole, so running it again is safe, and the other side has gone on by then.
 */
export async function retryOnDeadlock<T>(transaction: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction()
    } catch (error) {
      if (pgErrorCode(error) !== DEADLOCK_DETECTED || attempt >= attempts) throw error
    }
  }
}
