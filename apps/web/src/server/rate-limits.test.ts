import { describe, expect, it } from 'vitest'
import { DEFAULT_RATE_LIMITS, rateLimitSettings } from './rate-limits'

describe('rateLimitSettings', () => {
  it('gives a tenant API_TENANT_RATE_FACTOR × its transactional rate and burst, and no key more than its tenant', () => {
    const defaults = rateLimitSettings({
      API_TENANT_RATE_FACTOR: 2,
      TRANSACTIONAL_RATE_PER_SEC: 200,
      TRANSACTIONAL_BURST: 400,
    })
    expect(defaults.perTenant).toEqual({ pointsPerSec: 400, burstPoints: 800, burstWindowSec: 10 })
    expect(defaults.perKey).toEqual(DEFAULT_RATE_LIMITS.perKey)

    const small = rateLimitSettings({
      API_TENANT_RATE_FACTOR: 1,
      TRANSACTIONAL_RATE_PER_SEC: 50,
      TRANSACTIONAL_BURST: 20,
    })
    expect(small.perTenant).toEqual({ pointsPerSec: 50, burstPoints: 20, burstWindowSec: 10 })
    expect(small.perKey).toMatchObject({ pointsPerSec: 50, burstPoints: 20 })
  })
})
