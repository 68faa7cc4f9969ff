import pino, { type Logger } from 'pino'

/** JSON lines on stdout; every line about a message carries tenantId, messageId, lane and jobId. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'worker' } })
}
