import type { Logger } from '../logger'

/** A logger that keeps its lines, so a test can assert what was (or was not) logged. */
export interface CollectingLogger extends Logger {
  lines: { level: string; fields: Record<string, unknown>; message: string }[]
}

export function collectingLogger(): CollectingLogger {
  const lines: CollectingLogger['lines'] = []
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, fields, message })
  }
  return { lines, info: at('info'), warn: at('warn'), error: at('error') }
}
