import {
  type ApplyFeedbackDeps,
  applyFeedback,
  type Feedback,
  type FeedbackMail,
  readFeedback,
  sanitiseText,
} from '@fairlane/core'
import type { Logger } from 'pino'
import type { InboundMetrics } from './metrics'
import { readMail } from './read-mail'
import type { ReceivedMessage } from './smtp-server'
import type { StatusSettler } from './status-settler'

/** How much of a report that changed nothing is logged: enough to see what it was and improve the reader. */
const EXCERPT_CHARS = 2_000

/**
 * What the SMTP side does with a message it accepted: read it once, then apply it to the message each
 * return path names (there is one in practice: a bounce goes to one envelope sender). A database
 * failure rejects, and the sender is answered 451 to try again; a message takes one event of each
 * kind (`applyFeedback`), so that retry is safe.
 */
export function createReportReceiver(deps: {
  feedback: ApplyFeedbackDeps
  logger: Logger
  metrics: InboundMetrics
  settler: StatusSettler
}): (message: ReceivedMessage) => Promise<void> {
  const { logger, metrics } = deps
  return async (message) => {
    const read = await readMail(message.raw).catch((error: unknown) => {
      logger.warn({ err: error, bytes: message.raw.length }, 'a report could not be read as MIME')
      return undefined
    })
    const feedback: Feedback = read
      ? readFeedback(read.mail)
      : { kind: 'unparseable', reason: 'the message could not be read as MIME' }
    const reportId = read?.reportId ?? `unread:${message.raw.length}`
    for (const recipient of message.recipients) {
      const outcome = await applyFeedback({ recipient, feedback }, deps.feedback)
      metrics.message(outcome.kind)
      const context = { ...outcome, reportId, client: message.remoteAddress, mailFrom: message.mailFrom }
      switch (outcome.kind) {
        case 'hard-bounce':
        case 'soft-bounce':
        case 'complaint':
          if (outcome.statusPending) {
            deps.settler.track({ tenantId: outcome.tenantId, messageId: outcome.messageId })
          }
          logger.info(context, outcome.duplicate ? 'report applied before; ignored' : 'report applied')
          break
        case 'auto-reply':
        case 'ignored':
          logger.info(context, 'report recorded; it changes nothing')
          break
        case 'unparseable':
          // Nothing is lost: what the report said is kept here for a person (and a better reader).
          logger.warn(
            { ...context, ...(read ? excerpt(read.mail) : {}) },
            'report could not be read; nothing applied',
          )
          break
        case 'unknown-message':
          logger.info(context, 'report for a message that no longer exists; dropped')
          break
        case 'forged':
          logger.warn(context, 'report for a return path that does not belong to its message; ignored')
          break
      }
    }
  }
}

function excerpt(mail: FeedbackMail): Record<string, unknown> {
  return {
    subject: sanitiseText(mail.subject, 200),
    from: sanitiseText(mail.headers.find((header) => header.name === 'from')?.value ?? '', 200),
    text: sanitiseText(mail.text, EXCERPT_CHARS),
    parts: mail.parts.map((part) => ({
      type: part.contentType,
      content: sanitiseText(part.content, EXCERPT_CHARS),
    })),
  }
}
