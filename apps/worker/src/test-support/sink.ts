import { type MailSink, startMailSink } from '@fairlane/mailsink/sink'
import pino from 'pino'

/** An in-process mail sink on free ports, silent. */
export function startTestSink(): Promise<MailSink> {
  return startMailSink({
    host: '127.0.0.1',
    smtpPort: 0,
    httpPort: 0,
    maxMessages: 100_000,
    logger: pino({ level: 'silent' }),
  })
}

/** Message-IDs received more than once: the exactly-once check, counted the way the chaos bench counts. */
export function duplicateMessageIds(sink: MailSink): string[] {
  const seen = new Map<string, number>()
  for (const message of sink.store.list()) {
    const id = message.messageId ?? ''
    seen.set(id, (seen.get(id) ?? 0) + 1)
  }
  return [...seen].filter(([, count]) => count > 1).map(([id]) => id)
}
