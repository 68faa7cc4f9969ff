import { describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from './load'

const production = {
  NODE_ENV: 'production',
  SESSION_SECRET: 'session-secret-for-production-0123456789',
  UNSUBSCRIBE_SECRET: '1:unsubscribe-secret-for-production-0123456789',
  DKIM_ENCRYPTION_KEY: `2:${Buffer.alloc(32, 7).toString('base64')}`,
}

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  throw new Error('expected the environment to be refused')
}

describe('submission variables', () => {
  it('defaults: port 587, no TLS port, plaintext AUTH off, 20 connections and 5 failed logins per address', () => {
    const config = parseConfig({})
    expect(config.SUBMISSION_TLS_PORT).toBeUndefined()
    expect(config).toMatchObject({
      SUBMISSION_PORT: 587,
      SUBMISSION_ALLOW_PLAINTEXT_AUTH: false,
      SUBMISSION_HTTP_PORT: 9467,
      SUBMISSION_MAX_CLIENTS_PER_ADDRESS: 20,
      SUBMISSION_AUTH_FAILURES_PER_ADDRESS: 5,
      SUBMISSION_AUTH_LOCKOUT_MS: 300_000,
    })
  })

  it('refuses SUBMISSION_ALLOW_PLAINTEXT_AUTH=true in production, naming it; development may', () => {
    const problems = problemsOf({ ...production, SUBMISSION_ALLOW_PLAINTEXT_AUTH: 'true' })
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^SUBMISSION_ALLOW_PLAINTEXT_AUTH: must not be true in production/)
    expect(parseConfig({ SUBMISSION_ALLOW_PLAINTEXT_AUTH: 'true' }).SUBMISSION_ALLOW_PLAINTEXT_AUTH).toBe(
      true,
    )
  })

  it('needs the certificate and key together, and both for the TLS port', () => {
    expect(problemsOf({ SUBMISSION_TLS_CERT: '/tls/cert.pem' })[0]).toMatch(/^SUBMISSION_TLS_KEY: /)
    expect(problemsOf({ SUBMISSION_TLS_PORT: '465' })[0]).toMatch(
      /^SUBMISSION_TLS_PORT: needs SUBMISSION_TLS_CERT/,
    )
    expect(
      parseConfig({
        SUBMISSION_TLS_PORT: '465',
        SUBMISSION_TLS_CERT: '/c.pem',
        SUBMISSION_TLS_KEY: '/k.pem',
      }),
    ).toMatchObject({ SUBMISSION_TLS_PORT: 465, SUBMISSION_TLS_CERT: '/c.pem' })
    expect(problemsOf({ SUBMISSION_PORT: '70000' })[0]).toMatch(/^SUBMISSION_PORT: /)
  })
})
