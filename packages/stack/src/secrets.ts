import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { generateAdminToken, generateApiKey } from '@fairlane/core'

export interface LocalSecrets {
  SESSION_SECRET: string
  /** `1:<random>`: key id 1 signs (see UNSUBSCRIBE_SECRET in the README). */
  UNSUBSCRIBE_SECRET: string
  /** `1:<32 random bytes, base64>`: encrypts tenants' DKIM private keys (see DKIM_ENCRYPTION_KEY). */
  DKIM_ENCRYPTION_KEY: string
  ADMIN_TOKEN: string
  DEMO_API_KEY: string
  /** The demo platform admin's password (seed.ts, DEMO_ADMIN_EMAIL). */
  DEMO_ADMIN_PASSWORD: string
}

/**
 * The secrets a local platform needs. Values from the environment win (scripts pin DEMO_API_KEY and
 * ADMIN_TOKEN that way); the rest are generated once and kept in the git-ignored data folder, so a
 * restart keeps the same demo key and admin token instead of invalidating what a developer copied.
 */
export function loadOrCreateSecrets(file: string, env: NodeJS.ProcessEnv): LocalSecrets {
  const saved: Partial<LocalSecrets> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}
  const generated: LocalSecrets = {
    SESSION_SECRET: saved.SESSION_SECRET ?? randomBytes(32).toString('base64url'),
    UNSUBSCRIBE_SECRET: saved.UNSUBSCRIBE_SECRET ?? `1:${randomBytes(32).toString('base64url')}`,
    DKIM_ENCRYPTION_KEY: saved.DKIM_ENCRYPTION_KEY ?? `1:${randomBytes(32).toString('base64')}`,
    ADMIN_TOKEN: saved.ADMIN_TOKEN ?? generateAdminToken(),
    DEMO_API_KEY: saved.DEMO_API_KEY ?? generateApiKey(),
    DEMO_ADMIN_PASSWORD: saved.DEMO_ADMIN_PASSWORD ?? randomBytes(12).toString('base64url'),
  }
  const content = `${JSON.stringify(generated, null, 2)}\n`
  // Written only when something was generated, and whole (a rename): several launchers may start at
  // once (tests, a second terminal), and one must never read another's half-written file.
  if (!existsSync(file) || readFileSync(file, 'utf8') !== content) {
    mkdirSync(dirname(file), { recursive: true })
    const partial = `${file}.${process.pid}.tmp`
    writeFileSync(partial, content, { mode: 0o600 })
    renameSync(partial, file)
  }
  return {
    SESSION_SECRET: env.SESSION_SECRET || generated.SESSION_SECRET,
    UNSUBSCRIBE_SECRET: env.UNSUBSCRIBE_SECRET || generated.UNSUBSCRIBE_SECRET,
    DKIM_ENCRYPTION_KEY: env.DKIM_ENCRYPTION_KEY || generated.DKIM_ENCRYPTION_KEY,
    ADMIN_TOKEN: env.ADMIN_TOKEN || generated.ADMIN_TOKEN,
    DEMO_API_KEY: env.DEMO_API_KEY || generated.DEMO_API_KEY,
    DEMO_ADMIN_PASSWORD: env.DEMO_ADMIN_PASSWORD || generated.DEMO_ADMIN_PASSWORD,
  }
}
