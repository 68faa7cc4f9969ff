import { describe, expect, it } from 'vitest'
import { judgeRedisPolicy, parseRedisInfo } from './redis-policy'

const info = (policy: string, aof: 0 | 1) =>
  `# Memory\r\nused_memory:1000\r\nmaxmemory_policy:${policy}\r\n\r\n# Persistence\r\naof_enabled:${aof}\r\n`

describe('queue Redis policy', () => {
  it('reads the policy and AOF flag out of INFO text', () => {
    expect(parseRedisInfo(info('noeviction', 1))).toEqual({ maxmemoryPolicy: 'noeviction', aofEnabled: true })
    expect(parseRedisInfo(info('allkeys-lru', 0))).toEqual({
      maxmemoryPolicy: 'allkeys-lru',
      aofEnabled: false,
    })
  })

  it.each(['allkeys-lru', 'allkeys-lfu', 'allkeys-random', 'volatile-lru', 'volatile-ttl'])(
    'refuses %s',
    (policy) => {
      const verdict = judgeRedisPolicy(parseRedisInfo(info(policy, 1)), 'production')
      expect(verdict.kind).toBe('refused')
      if (verdict.kind === 'refused') expect(verdict.reason).toContain(policy)
    },
  )

  it('accepts noeviction, warning about AOF only outside development', () => {
    expect(judgeRedisPolicy(parseRedisInfo(info('noeviction', 0)), 'development')).toEqual({
      kind: 'ok',
      warnings: [],
    })
    const production = judgeRedisPolicy(parseRedisInfo(info('noeviction', 0)), 'production')
    expect(production.kind).toBe('ok')
    if (production.kind === 'ok') expect(production.warnings.join()).toMatch(/AOF is off/)
    expect(judgeRedisPolicy(parseRedisInfo(info('noeviction', 1)), 'production')).toEqual({
      kind: 'ok',
      warnings: [],
    })
  })
})
