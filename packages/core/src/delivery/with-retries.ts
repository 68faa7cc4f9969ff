/**
 * The server already accepted the mail: failing to record that (a database blip) would resend it
 * once the lock expires. A few quick retries cover a blip; a longer outage still throws.
 */
export async function withRetries<T>(
  operation: () => Promise<T>,
  delaysMs: readonly number[] = [100, 500, 2_000],
): Promise<T> {
  for (const delayMs of delaysMs) {
    try {
      return await operation()
    } catch {
      await new Promise((resolve) => setTimeout(resolve, delayMs))
    }
  }
  return operation()
}
