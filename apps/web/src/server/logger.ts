/**
 * The slice of pino the request path uses, so handlers can be given a collecting logger in tests.
 * pino's own `Logger` satisfies it.
 */
export interface Logger {
  info(fields: Record<string, unknown>, message: string): void
  warn(fields: Record<string, unknown>, message: string): void
  error(fields: Record<string, unknown>, message: string): void
}
