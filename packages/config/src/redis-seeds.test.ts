import { describe, expect, it } from 'vitest'
import { parseConfig } from './load'
import { parseRedisSeeds } from './redis-seeds'

describe('parseRedisSeeds', () => {
  it('reads one URL as one seed, with the default port', () => {
    expect(parseRedisSeeds('redis://127.0.0.1')).toEqual([
      { url: 'redis://127.0.0.1', host: '127.0.0.1', port: 6379, tls: false },
    ])
  })

  it('reads a comma list, trimming spaces, with credentials, TLS and IPv6', () => {
    expect(
      parseRedisSeeds(' redis://a:7000 , rediss://user:p%40ss@b.example:7001,redis://[::1]:7002'),
    ).toEqual([
      { url: 'redis://a:7000', host: 'a', port: 7000, tls: false },
      {
        url: 'rediss://user:p%40ss@b.example:7001',
        host: 'b.example',
        port: 7001,
        username: 'user',
        password: 'p@ss',
        tls: true,
      },
      { url: 'redis://[::1]:7002', host: '::1', port: 7002, tls: false },
    ])
  })

  it.each([
    ['redis://a:7000,', /empty entries/],
    ['redis://a:7000,http://b:7001', /"http:\/\/b:7001" is not a redis:\/\//],
    ['redis://a:7000,b:7001', /"b:7001" is not a redis:\/\//],
    ['nothing', /"nothing" is not a URL/],
  ])('refuses %s', (value, message) => {
    expect(() => parseRedisSeeds(value)).toThrow(message)
  })
})

describe('REDIS_URL and REDIS_CLUSTER', () => {
  it('defaults to one local Redis, not a cluster', () => {
    const config = parseConfig({})
    expect(config.REDIS_CLUSTER).toBe(false)
    expect(config.REDIS_URL).toBe('redis://127.0.0.1:6379')
  })

  it('takes several seeds with REDIS_CLUSTER=true, normalised without spaces', () => {
    const config = parseConfig({ REDIS_CLUSTER: 'true', REDIS_URL: 'redis://a:7000, redis://b:7001' })
    expect(config.REDIS_CLUSTER).toBe(true)
    expect(config.REDIS_URL).toBe('redis://a:7000,redis://b:7001')
  })

  it('refuses a comma list without REDIS_CLUSTER=true, naming REDIS_URL', () => {
    expect(() => parseConfig({ REDIS_URL: 'redis://a:7000,redis://b:7001' })).toThrow(
      /REDIS_URL: lists several nodes, which only a Redis Cluster takes: set REDIS_CLUSTER=true/,
    )
  })

  it('refuses a bad seed in the list, naming REDIS_URL', () => {
    expect(() => parseConfig({ REDIS_CLUSTER: 'true', REDIS_URL: 'redis://a:7000,http://b:7001' })).toThrow(
      /^Invalid environment: REDIS_URL: expected a redis:\/\/ or rediss:\/\/ URL/,
    )
  })

  it('refuses a REDIS_CLUSTER that is not true or false', () => {
    expect(() => parseConfig({ REDIS_CLUSTER: 'yes' })).toThrow(/REDIS_CLUSTER: expected true or false/)
  })
})
