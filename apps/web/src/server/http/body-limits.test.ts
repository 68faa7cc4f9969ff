import { describe, expect, it } from 'vitest'
import nextConfig from '../../../next.config'
import { BODY_LIMITS, bodyLimitOf } from './body-limits'

describe('body limits', () => {
  it.each([
    ['/api/v1/messages', 'message', Math.ceil((10 * 1024 * 1024) / 3) * 4 + 1024 * 1024],
    ['/api/v1/messages/m1', 'api', 1024 * 1024],
    ['/api/v1/campaigns/c1/cancel?x=1', 'api', 1024 * 1024],
    ['/api/admin/tenants', 'api', 1024 * 1024],
    ['/api/v1/contacts', 'contactsImport', 5 * 1024 * 1024],
    ['/contacts/import/rows', 'contactsImport', 5 * 1024 * 1024],
    ['/api/v1/suppressions/import?scope=all', 'suppressionsImport', 5 * 1024 * 1024],
    ['/suppressions/import', 'suppressionsImport', 5 * 1024 * 1024],
    ['/api/v1/suppressions', 'api', 1024 * 1024],
    ['/api/auth/sign-in/email', 'auth', 16 * 1024],
    ['/u/abc', 'unsubscribe', 4 * 1024],
    ['/campaigns/new', 'pages', 2 * 1024 * 1024],
    ['/', 'pages', 2 * 1024 * 1024],
  ])('%s is capped as %s', (path, bodyClass, maxBytes) => {
    expect(bodyLimitOf(path)).toEqual({ class: bodyClass, maxBytes })
  })

  it('caps pages and server actions exactly as next.config does', () => {
    const limit = nextConfig.experimental?.serverActions?.bodySizeLimit
    expect(limit).toBe('2mb')
    expect(BODY_LIMITS.pages).toBe(2 * 1024 * 1024)
  })
})
