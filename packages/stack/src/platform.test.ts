import { ConfigError, parseConfig } from '@fairlane/config'
import { describe, expect, it } from 'vitest'
import { webProcessEnv } from './platform'

const secrets = {
  SESSION_SECRET: 'session-secret-for-production-0123456789',
  UNSUBSCRIBE_SECRET: '1:unsubscribe-secret-for-production-0123456789',
  DKIM_ENCRYPTION_KEY: `1:${Buffer.alloc(32, 9).toString('base64')}`,
}

const problemsOf = (env: NodeJS.ProcessEnv): string[] => {
  try {
    parseConfig(env)
    return []
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
}

describe('webProcessEnv', () => {
  it("lets `pnpm start`'s production build of the web keep private webhook addresses on this machine", () => {
    const local = { ...secrets, WEBHOOK_ALLOW_PRIVATE: 'true' }
    const web: NodeJS.ProcessEnv = { ...local, ...webProcessEnv(local, 'start') }
    expect(web.NODE_ENV).toBe('production')
    expect(problemsOf(web)).toEqual([])
    expect(webProcessEnv(local, 'dev')).toEqual({ NODE_ENV: 'development' })
  })

  it('gives a caller that asked for production no pass: the web refuses to boot, naming the variable', () => {
    const production = { ...secrets, NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE: 'true' }
    expect(webProcessEnv(production, 'start')).toEqual({ NODE_ENV: 'production' })
    const problems = problemsOf({ ...production, ...webProcessEnv(production, 'start') })
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^WEBHOOK_ALLOW_PRIVATE: must not be true in production/)
    const off = { ...secrets, WEBHOOK_ALLOW_PRIVATE: 'false' }
    expect(webProcessEnv(off, 'start')).toEqual({ NODE_ENV: 'production' })
  })
})
