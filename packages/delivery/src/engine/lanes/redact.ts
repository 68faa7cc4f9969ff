// A match starts only where a run of address characters starts (the lookbehind): without it a remote
// server's long reply without an `@` is scanned again from each of its characters, in quadratic time.
const ADDRESS = /(?<![^\s<>()[\]"',;:@])[^\s<>()[\]"',;:@]+@[^\s<>()[\]"',;:@]+/g

/**
 * SMTP replies often quote the recipient ("<bob@example.com>: Recipient address rejected"). Dead
 * letters live in Redis and logs are shipped around, and both must carry ids, never addresses.
 */
export function redactAddresses(text: string): string {
  return text.replace(ADDRESS, '<address>')
}

/** Longest SMTP reply kept for a `sent` event: the status line and an id, not a transcript. */
export const MAX_REPLY_LENGTH = 500

/**
 * The server's reply as a tenant sees it in the message's `sent` event: one line (CR, LF and other
 * control characters become spaces), no addresses, at most `MAX_REPLY_LENGTH` characters.
 */
export function tidyReply(reply: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  const line = redactAddresses(reply.replace(/[\u0000-\u001f\u007f]+/g, ' ')).trim()
  return line.length > MAX_REPLY_LENGTH ? `${line.slice(0, MAX_REPLY_LENGTH - 1)}…` : line
}

/**
 * Takes the addresses out of an error's message and stack, in place: BullMQ keeps both in Redis for
 * days (`failedReason`, `stacktrace`), and the same instance must stay throwable as itself
 * (`UnrecoverableError`, `DelayedError` are recognised by class and name). Returns the error.
 */
export function redactError<T>(error: T): T {
  if (!(error instanceof Error)) return error
  error.message = redactAddresses(error.message)
  if (typeof error.stack === 'string') error.stack = redactAddresses(error.stack)
  return error
}

/**
 * A BullMQ processor whose rejections carry no addresses: whatever it throws (an SMTP error quoting
 * the recipient, a wrapped cause) reaches Redis redacted. The raw reply stays in PostgreSQL's
 * `last_error`, for admins.
 */
export function withRedactedErrors<Args extends unknown[], Result>(
  processor: (...args: Args) => Promise<Result>,
): (...args: Args) => Promise<Result> {
  return async (...args) => {
    try {
      return await processor(...args)
    } catch (error) {
      if (error instanceof Error) throw redactError(error)
      throw new Error(redactAddresses(String(error)))
    }
  }
}
