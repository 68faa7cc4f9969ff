/** A reason the worker must not start; main prints its message as one line and exits 1. */
export class BootError extends Error {
  override readonly name = 'BootError'
}

/** host:port of a URL, for messages that must never print a password. */
export function endpointOf(url: string): string {
  const parsed = new URL(url)
  return `${parsed.hostname}:${parsed.port || 'default port'}`
}
