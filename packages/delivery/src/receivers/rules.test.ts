import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  DEFAULT_RECEIVER_RULES_PATH,
  loadReceiverRules,
  parseReceiverRules,
  ReceiverRulesError,
} from './rules'

/** A small valid rules file; each test breaks one thing in a fresh copy. */
function validRules() {
  return {
    providers: [
      {
        name: 'google',
        description: 'Gmail and Workspace',
        mx: ['*.google.com', '*.googlemail.com'],
        limits: { connections: 5, messagesPerConnection: 50, perMinute: 600 },
      },
      {
        name: 'microsoft',
        mx: ['*.protection.outlook.com'],
        limits: { connections: 5, messagesPerConnection: 50, perMinute: 600 },
      },
    ],
    default: { limits: { connections: 2, messagesPerConnection: 20, perMinute: 60 } },
    warmup: {
      schedule: [
        { day: 1, perDayPerProvider: 200 },
        { day: 3, perDayPerProvider: 1000 },
      ],
      warmAfterDay: 10,
    },
    criticalReserve: 0.1,
    backoff: { decrease: 0.5, pauseMs: 60_000, increasePerMinute: 10, minPerMinute: 6 },
  }
}

function refusal(input: unknown): string {
  try {
    parseReceiverRules(input)
  } catch (error) {
    expect(error).toBeInstanceOf(ReceiverRulesError)
    return (error as Error).message
  }
  throw new Error('expected the rules to be refused')
}

describe('parseReceiverRules', () => {
  it('accepts a valid file and normalizes host patterns', () => {
    const input = validRules()
    nth(input.providers, 0).mx = ['*.Google.COM.', 'ASPMX.L.GOOGLE.COM']
    const rules = parseReceiverRules(input)
    expect(nth(rules.providers, 0).mx).toEqual(['*.google.com', 'aspmx.l.google.com'])
    expect(nth(rules.providers, 0).description).toBe('Gmail and Workspace')
    expect(rules.default.limits.perMinute).toBe(60)
  })

  it('refuses an unknown field, naming its path', () => {
    const input = validRules()
    const limits = nth(input.providers, 1).limits as Record<string, number>
    limits.perMinut = 5
    expect(refusal(input)).toBe('RECEIVER_RULES: providers[1].limits.perMinut: unknown field')
  })

  it('refuses an unknown field at the top and in the back-off (no "_comment" fields: use description)', () => {
    expect(refusal({ ...validRules(), _comment: 'x' })).toBe('RECEIVER_RULES: _comment: unknown field')
    const input = validRules()
    ;(input.backoff as Record<string, number>).increase = 2
    expect(refusal(input)).toBe('RECEIVER_RULES: backoff.increase: unknown field')
  })

  it.each([
    ['a negative limit', ['providers', 0, 'limits', 'connections'], -1, 'providers[0].limits.connections'],
    [
      'a zero limit',
      ['providers', 1, 'limits', 'messagesPerConnection'],
      0,
      'providers[1].limits.messagesPerConnection',
    ],
    ['a zero rate', ['default', 'limits', 'perMinute'], 0, 'default.limits.perMinute'],
    ['a negative rate', ['providers', 0, 'limits', 'perMinute'], -600, 'providers[0].limits.perMinute'],
    [
      'a fraction of a connection',
      ['providers', 0, 'limits', 'connections'],
      1.5,
      'providers[0].limits.connections',
    ],
    [
      'a limit as a string',
      ['providers', 0, 'limits', 'connections'],
      '5',
      'providers[0].limits.connections',
    ],
    [
      'a negative warm-up cap',
      ['warmup', 'schedule', 1, 'perDayPerProvider'],
      -5,
      'warmup.schedule[1].perDayPerProvider',
    ],
    ['a zero pause', ['backoff', 'pauseMs'], 0, 'backoff.pauseMs'],
    ['a decrease of 1 (no cut)', ['backoff', 'decrease'], 1, 'backoff.decrease'],
    ['a negative decrease', ['backoff', 'decrease'], -0.5, 'backoff.decrease'],
    ['a negative increase', ['backoff', 'increasePerMinute'], -1, 'backoff.increasePerMinute'],
    ['a reserve of the whole rate', ['criticalReserve'], 1, 'criticalReserve'],
    ['a negative reserve', ['criticalReserve'], -0.1, 'criticalReserve'],
  ])('refuses %s, naming the field', (_name, path, value, named) => {
    const input = validRules()
    setPath(input, path, value)
    const message = refusal(input)
    expect(message).toMatch(new RegExp(`^RECEIVER_RULES: ${escapeRegExp(named)}: expected`))
  })

  it('refuses a missing field as required', () => {
    const input = validRules() as Record<string, unknown>
    delete input.backoff
    expect(refusal(input)).toBe('RECEIVER_RULES: backoff: required')
    const limitless = validRules()
    delete (nth(limitless.providers, 0).limits as { perMinute?: number }).perMinute
    expect(refusal(limitless)).toBe('RECEIVER_RULES: providers[0].limits.perMinute: required')
  })

  it('refuses duplicate provider names', () => {
    const input = validRules()
    nth(input.providers, 1).name = 'google'
    expect(refusal(input)).toBe(
      'RECEIVER_RULES: providers[1].name: duplicate provider name "google" (also providers[0])',
    )
  })

  it('refuses a pattern listed twice, even in other case or with a trailing dot', () => {
    const input = validRules()
    nth(input.providers, 1).mx = ['*.protection.outlook.com', '*.GOOGLE.com.']
    expect(refusal(input)).toBe(
      'RECEIVER_RULES: providers[1].mx[1]: "*.google.com" is listed twice (also providers[0].mx[0])',
    )
  })

  it('refuses a provider name with a dot (it could collide with a domain named provider)', () => {
    const input = validRules()
    nth(input.providers, 0).name = 'gmail.com'
    expect(refusal(input)).toMatch(/^RECEIVER_RULES: providers\[0\]\.name: expected 1-63 lowercase/)
  })

  it.each([
    ['google.*'],
    ['*google.com'],
    ['mx.*.google.com'],
    ['*.com'],
    ['localhost'],
    ['mx_1.example.com'],
    ['-mx.example.com'],
    ['a..example.com'],
    ['127.0.0.10'],
    [''],
    ['*.'],
    ['https://mx.example.com'],
  ])('refuses the pattern "%s", naming it', (pattern) => {
    const input = validRules()
    nth(input.providers, 1).mx = ['*.protection.outlook.com', pattern]
    expect(refusal(input)).toMatch(
      new RegExp(
        `^RECEIVER_RULES: providers\\[1\\]\\.mx\\[1\\]: expected a host name or \\*\\.suffix .*"${escapeRegExp(pattern)}"`,
      ),
    )
  })

  it('refuses a provider without MX patterns', () => {
    const input = validRules()
    nth(input.providers, 0).mx = []
    expect(refusal(input)).toBe('RECEIVER_RULES: providers[0].mx: expected at least one host pattern')
  })

  it('refuses a warm-up that does not start on day 1, goes back in time, shrinks or never ends', () => {
    const late = validRules()
    nth(late.warmup.schedule, 0).day = 2
    expect(refusal(late)).toMatch(/^RECEIVER_RULES: warmup\.schedule\[0\]\.day: the first step must be day 1/)

    const backwards = validRules()
    nth(backwards.warmup.schedule, 1).day = 1
    expect(refusal(backwards)).toBe(
      'RECEIVER_RULES: warmup.schedule[1].day: expected a day after 1 (steps in order, each day once)',
    )

    const shrinking = validRules()
    nth(shrinking.warmup.schedule, 1).perDayPerProvider = 100
    expect(refusal(shrinking)).toBe(
      'RECEIVER_RULES: warmup.schedule[1].perDayPerProvider: expected at least 200: a warm-up only grows',
    )

    const endless = validRules()
    endless.warmup.warmAfterDay = 3
    expect(refusal(endless)).toBe(
      "RECEIVER_RULES: warmup.warmAfterDay: expected a day after the last step's (3)",
    )
  })

  it('refuses a back-off floor above a starting rate, naming both', () => {
    const input = validRules()
    input.backoff.minPerMinute = 100
    expect(refusal(input)).toBe(
      'RECEIVER_RULES: backoff.minPerMinute: 100 is above default.limits.perMinute (60)',
    )
  })

  it('marks warming egress addresses by IP, refusing anything else naming the entry', () => {
    const rules = validRules()
    rules.warmup = { ...rules.warmup, addresses: ['192.0.2.10', 'mail.example.com'] } as typeof rules.warmup
    expect(refusal(rules)).toMatch(/warmup\.addresses\[1\]: expected an IP address/)
  })

  it('lists every problem of a file at once', () => {
    const input = validRules()
    nth(input.providers, 0).limits.connections = -1
    input.criticalReserve = 2
    const message = refusal(input)
    expect(message).toContain('providers[0].limits.connections')
    expect(message).toContain('criticalReserve')
  })

  it('refuses something that is not an object', () => {
    expect(refusal([])).toMatch(/^RECEIVER_RULES: \(file\): /)
    expect(refusal(null)).toMatch(/^RECEIVER_RULES: \(file\): /)
  })
})

describe('the default rules file', () => {
  const rules = loadReceiverRules()

  it('parses, and rolls up the big four providers', () => {
    expect(rules.providers.map((provider) => provider.name)).toEqual([
      'google',
      'microsoft',
      'yahoo',
      'apple',
    ])
    const patterns = Object.fromEntries(rules.providers.map((provider) => [provider.name, provider.mx]))
    expect(patterns.google).toEqual(['*.google.com', '*.googlemail.com'])
    expect(patterns.microsoft).toEqual(expect.arrayContaining(['*.protection.outlook.com', '*.outlook.com']))
    expect(patterns.yahoo).toEqual(['*.yahoodns.net'])
    expect(patterns.apple).toEqual(['*.mail.icloud.com'])
  })

  it('gives every provider limits a shared IP can start with, and a critical reserve', () => {
    // CONTRACT.md: every provider starts at no less than 10 messages a second per egress address.
    expect(rules.default.limits.perMinute).toBeGreaterThanOrEqual(600)
    expect(rules.warmup.addresses).toEqual([])
    for (const provider of rules.providers) {
      expect(provider.limits.perMinute).toBeGreaterThanOrEqual(600)
      expect(provider.limits.perMinute).toBeGreaterThanOrEqual(rules.backoff.minPerMinute)
      expect(provider.limits.connections).toBeLessThanOrEqual(10)
      expect(provider.description).toBeTruthy()
    }
    expect(rules.criticalReserve).toBeGreaterThan(0)
    expect(rules.backoff.decrease).toBeLessThan(1)
  })

  it('is the file loadReceiverRules reads without a path', () => {
    expect(loadReceiverRules(DEFAULT_RECEIVER_RULES_PATH)).toEqual(rules)
    expect(DEFAULT_RECEIVER_RULES_PATH).toMatch(/packages\/delivery\/receivers\.default\.json$/)
  })
})

describe('loadReceiverRules', () => {
  const directory = mkdtempSync(join(tmpdir(), 'receiver-rules-'))
  afterAll(() => rmSync(directory, { recursive: true, force: true }))

  it('names the file in a validation error', () => {
    const path = join(directory, 'typo.json')
    const input = validRules()
    ;(nth(input.providers, 1).limits as Record<string, number>).perMinut = 5
    writeFileSync(path, JSON.stringify(input))
    expect(() => loadReceiverRules(path)).toThrow(
      `RECEIVER_RULES (${path}): providers[1].limits.perMinut: unknown field`,
    )
  })

  it('names the file when it is not JSON or cannot be read', () => {
    const path = join(directory, 'broken.json')
    writeFileSync(path, '{ "providers": [ ')
    expect(() => loadReceiverRules(path)).toThrow(
      new RegExp(`^RECEIVER_RULES \\(${escapeRegExp(path)}\\): \\(file\\): not valid JSON`),
    )
    const missing = join(directory, 'missing.json')
    expect(() => loadReceiverRules(missing)).toThrow(
      `RECEIVER_RULES (${missing}): (file): cannot read the file (ENOENT)`,
    )
  })

  it('reads a valid file', () => {
    const path = join(directory, 'valid.json')
    writeFileSync(path, JSON.stringify(validRules()))
    expect(loadReceiverRules(path).providers.map((provider) => provider.name)).toEqual([
      'google',
      'microsoft',
    ])
  })
})

/** The item at `index`, which the test itself put there. */
function nth<T>(list: T[], index: number): T {
  const item = list[index]
  if (item === undefined) throw new Error(`no item ${index}`)
  return item
}

function setPath(target: unknown, path: (string | number)[], value: unknown) {
  let node = target as Record<string | number, unknown>
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>
  node[path[path.length - 1] as string | number] = value
}

function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
