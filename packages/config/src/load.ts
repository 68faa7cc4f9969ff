import type { z } from 'zod'
import { type Config, envSchema } from './env'

/** Variables whose values are never echoed back in an error message. */
const SECRET_NAMES = new Set([
  'SESSION_SECRET',
  'UNSUBSCRIBE_SECRET',
  'DKIM_ENCRYPTION_KEY',
  'ADMIN_TOKEN',
  'DEMO_API_KEY',
  'METRICS_TOKEN',
  'DATABASE_URL',
  'DATABASE_DIRECT_URL',
  'REDIS_URL',
])

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  constructor(readonly problems: string[]) {
    super(`Invalid environment: ${problems.join('; ')}`)
  }
}

function describe(issue: z.core.$ZodIssue, env: Record<string, string | undefined>): string {
  const name = String(issue.path[0] ?? 'environment')
  const raw = env[name]
  const shown =
    raw === undefined
      ? 'it is not set'
      : SECRET_NAMES.has(name)
        ? 'got a value that does not fit'
        : `got "${raw}"`
  return `${name}: ${issue.message} (${shown})`
}

/** Parses an environment; throws `ConfigError` naming each variable that is wrong. Empty strings count as unset. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  )
  const result = envSchema.safeParse(cleaned)
  if (!result.success) throw new ConfigError(result.error.issues.map((issue) => describe(issue, cleaned)))
  return result.data
}

/**
 * The one place a process reads its environment. On a wrong value it prints one line per variable
 * and exits 1, so a bad deploy stops at boot with the cause named instead of failing later.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  try {
    return parseConfig(env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    for (const problem of error.problems) console.error(`fairlane: invalid environment variable ${problem}`)
    process.exit(1)
  }
}

/** The host part of APP_URL, used when MAIL_DOMAIN is not set. */
export function mailDomain(config: Pick<Config, 'MAIL_DOMAIN' | 'APP_URL'>): string {
  return config.MAIL_DOMAIN ?? new URL(config.APP_URL).hostname
}

/** The UDP port of the mail sink's DNS server: `MAILSINK_DNS_PORT`, else the sink's HTTP port number. */
export function sinkDnsPort(config: Pick<Config, 'MAILSINK_DNS_PORT' | 'MAILSINK_HTTP_PORT'>): number {
  return config.MAILSINK_DNS_PORT ?? config.MAILSINK_HTTP_PORT
}
