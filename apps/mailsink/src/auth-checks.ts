import type { AuthChecker, MessageAuth, SmtpClient } from './auth'
import type { StoredMessage } from './store'

/** What a signed message shows in the moment between its 250 and the end of its check. */
export const NOT_CHECKED_YET: MessageAuth = Object.freeze({
  dkim: 'fail',
  dkimReason: 'not checked yet',
}) as MessageAuth

/** What a signed message the sink chose not to check shows (`every` > 1: one in `every` is checked). */
export const NOT_CHECKED: MessageAuth = Object.freeze({
  dkim: 'fail',
  dkimReason: 'not checked: the sink checks one signed message in MAILSINK_AUTH_CHECK_EVERY',
}) as MessageAuth

/**
 * The DKIM/SPF/DMARC checks of signed messages, run after the message was accepted so a check's
 * lookups and parsing (about 1.5 ms of CPU, a few ms of waiting) never hold the SMTP reply. Readers
 * wait for the checks of the messages they are about to show (`settled`), so whoever reads a
 * message after its 250 sees the verdict, never the placeholder. At most `concurrency` checks run at
 * once: under a burst the rest wait their turn instead of holding every raw message at once.
 * With `every` > 1 only the first signed message of each `every` is checked (a benchmark measuring
 * the sender's CPU on the same cores checks a sample); the others read `NOT_CHECKED`.
 */
export class AuthChecks {
  private readonly pending = new Map<string, Promise<void>>()
  private running = 0
  private readonly waiting: Array<() => void> = []
  private seen = 0

  constructor(
    private readonly checker: AuthChecker,
    private readonly concurrency = 16,
    private readonly every = 1,
  ) {
    if (!(Number.isInteger(every) && every >= 1))
      throw new RangeError(`every must be a whole number ≥ 1, got ${every}`)
  }

  get size(): number {
    return this.pending.size
  }

  /** Checks the message's raw bytes and sets `message.auth` when done; never rejects. */
  start(message: StoredMessage, raw: Buffer, client: SmtpClient): void {
    this.seen += 1
    if ((this.seen - 1) % this.every !== 0) {
      message.auth = NOT_CHECKED
      return
    }
    message.auth = NOT_CHECKED_YET
    const done = this.slot()
      .then(() => this.checker.check(raw, client))
      .then((auth) => {
        message.auth = auth
      })
      .finally(() => {
        this.release()
        this.pending.delete(message.id)
      })
    this.pending.set(message.id, done)
  }

  /** Resolves once the checks of these messages (those still running) are over, or after `timeoutMs`. */
  async settled(messages: readonly StoredMessage[], timeoutMs: number): Promise<void> {
    if (this.pending.size === 0) return
    const open = messages.flatMap((message) => this.pending.get(message.id) ?? [])
    if (open.length === 0) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.all(open),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs)
      }),
    ])
    clearTimeout(timer)
  }

  private slot(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++
      return Promise.resolve()
    }
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  private release(): void {
    const next = this.waiting.shift()
    // The slot passes straight to the next waiter, so `running` stays as it is.
    if (next) next()
    else this.running--
  }
}
