import { describe, expect, it } from 'vitest'
import type { DomainStatus } from '../domain/statuses'
import type { SenderDomains } from '../senders/ports'
import { type ApiKeyStore, issueApiKey, type NewApiKeyRow } from './issue-api-key'

const ACTOR = { userId: 'u1', label: 'owner@example.test', ipAddress: '203.0.113.9' }

function fakes(domains: Record<string, DomainStatus> = {}) {
  const inserted: (NewApiKeyRow & { actor: unknown })[] = []
  const store: ApiKeyStore = {
    insertWithinLimit: async ({ maxActive: _max, ...row }) => {
      inserted.push(row)
      return { created: true, id: `k${inserted.length}` }
    },
  }
  const senderDomains: SenderDomains = {
    findDomain: async ({ tenantId, name }) => {
      const status = tenantId === 't1' ? domains[name] : undefined
      return status ? { id: `d-${name}`, status } : null
    },
  }
  return { inserted, deps: { store, senderDomains, maxActiveKeys: 10 } }
}

describe('issueApiKey', () => {
  it('makes a full key without a domain by default, recording who made it', async () => {
    const { inserted, deps } = fakes()
    const made = await issueApiKey({ tenantId: 't1', name: 'Server', actor: ACTOR }, deps)
    expect(made).toMatchObject({ scope: 'full', domain: null, name: 'Server' })
    expect(inserted[0]).toMatchObject({ scope: 'full', domain: null, createdByUserId: 'u1', actor: ACTOR })
  })

  it('takes a sending scope and one of the tenant’s verified domains, normalised', async () => {
    const { inserted, deps } = fakes({ 'shop.test': 'verified' })
    const made = await issueApiKey(
      { tenantId: 't1', name: 'App', scope: 'sending', domain: ' SHOP.test. ', actor: ACTOR },
      deps,
    )
    expect(made).toMatchObject({ scope: 'sending', domain: 'shop.test' })
    expect(inserted[0]).toMatchObject({ scope: 'sending', domain: 'shop.test' })
  })

  it('refuses an unknown scope (400) and a domain that is not verified or not the tenant’s (422), naming the field', async () => {
    const { inserted, deps } = fakes({ 'pending.test': 'pending' })
    await expect(
      issueApiKey({ tenantId: 't1', name: 'A', scope: 'admin', actor: ACTOR }, deps),
    ).rejects.toMatchObject({ code: 'validation_failed', details: [{ path: 'scope' }] })
    for (const domain of ['pending.test', 'other.test', '127.0.0.1']) {
      await expect(
        issueApiKey({ tenantId: 't1', name: 'A', domain, actor: ACTOR }, deps),
      ).rejects.toMatchObject({
        code: 'unprocessable',
        details: [{ path: 'domain' }],
      })
    }
    expect(inserted).toEqual([])
  })
})
