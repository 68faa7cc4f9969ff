import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from './load'

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

describe('PLANS and PLANS_FILE', () => {
  it('reads named plans, defaulting transactional to the platform plan and quotas to none', () => {
    const config = parseConfig({
      PLANS: '{"tiny":{"ratePerSec":1,"burst":2,"weight":1,"quota":{"daily":10}}}',
    })
    expect(config.PLANS).toEqual({
      tiny: { ratePerSec: 1, burst: 2, weight: 1, transactional: null, quota: { daily: 10, monthly: null } },
    })
    expect(parseConfig({}).PLANS).toBeUndefined()
  })

  it.each([
    ['{nope', /^PLANS: expected JSON/],
    ['{"pro":{"ratePerSec":0,"burst":1,"weight":1}}', /^PLANS: expected named plans .*pro\.ratePerSec/],
    ['{"pro":{"ratePerSec":1,"burst":1,"weight":1,"speed":3}}', /^PLANS: .*unknown field speed/],
    ['{"Pro Plan":{"ratePerSec":1,"burst":1,"weight":1}}', /^PLANS: .*lowercase letters/],
    [
      '{"pro":{"ratePerSec":1,"burst":1,"weight":1,"transactional":{"ratePerSec":5}}}',
      /pro\.transactional\.burst/,
    ],
  ])('refuses %s naming the variable', (value, message) => {
    const problems = problemsOf({ PLANS: value })
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(message)
  })

  it('reads PLANS_FILE, names the file when it is missing or wrong, and refuses both variables at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'plans-'))
    const good = join(dir, 'plans.json')
    writeFileSync(good, '{"gold":{"ratePerSec":100,"burst":200,"weight":8}}')
    expect(Object.keys(parseConfig({ PLANS_FILE: good }).PLANS_FILE ?? {})).toEqual(['gold'])
    expect(problemsOf({ PLANS_FILE: join(dir, 'missing.json') })[0]).toMatch(
      /^PLANS_FILE: cannot read .*missing\.json/,
    )
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, '{"gold":{"ratePerSec":"fast","burst":200,"weight":8}}')
    expect(problemsOf({ PLANS_FILE: bad })[0]).toMatch(/^PLANS_FILE: .*bad\.json: .*gold\.ratePerSec/)
    expect(problemsOf({ PLANS_FILE: good, PLANS: '{}' })[0]).toMatch(
      /^PLANS_FILE: must not be set together with PLANS/,
    )
  })
})
