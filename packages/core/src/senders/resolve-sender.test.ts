import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { NO_SENDER, type SenderDomain, type SenderDomains } from './ports'
import { resolveSender } from './resolve-sender'
import { setDefaultSender } from './set-default-sender'

const TENANT = 'tenant-1'

/** An in-memory directory: name → domain, for TENANT only (another tenant's names are not found). */
function domains(entries: Record<string, SenderDomain>): SenderDomains & { lookups: string[] } {
  const lookups: string[] = []
  return {
    lookups,
    async findDomain({ tenantId, name }) {
      lookups.push(name)
      return tenantId === TENANT ? (entries[name] ?? null) : null
    },
  }
}

const verified = { id: 'd-verified', status: 'verified' } as const
const pending = { id: 'd-pending', status: 'pending' } as const
const failed = { id: 'd-failed', status: 'failed' } as const

async function refusal(work: Promise<unknown>): Promise<AppError> {
  try {
    await work
  } catch (error) {
    if (error instanceof AppError) return error
    throw error
  }
  throw new Error('expected a refusal')
}

describe('resolveSender', () => {
  const deps = () => ({
    domains: domains({ 'example.com': verified, 'pending.test': pending, 'failed.test': failed }),
  })

  it('uses the explicit from on a verified domain', async () => {
    const result = await resolveSender(
      {
        tenantId: TENANT,
        explicit: { from: '"News" <news@example.com>' },
        saved: { from: 'x@example.com', replyTo: 'saved@example.org' },
        defaults: { from: 'd@example.com', replyTo: 'default@example.org' },
      },
      deps(),
    )
    expect(result).toEqual({
      fromAddress: '"News" <news@example.com>',
      replyTo: 'saved@example.org',
      sendingDomainId: 'd-verified',
    })
  })

  it.each([
    ['a pending domain', 'news@pending.test', 'not verified (it is pending)'],
    ['a failed domain', 'news@failed.test', 'not verified (it is failed)'],
    ['a domain the tenant does not have', 'news@elsewhere.test', 'not one of your sending domains'],
  ])('refuses an explicit from on %s with 422 naming from', async (_label, from, message) => {
    const error = await refusal(
      resolveSender({ tenantId: TENANT, explicit: { from }, saved: null, defaults: NO_SENDER }, deps()),
    )
    expect(error.code).toBe('unprocessable')
    expect(error.details).toEqual([{ path: 'from', message: expect.stringContaining(message) }])
  })

  it('refuses another tenant’s verified domain', async () => {
    const error = await refusal(
      resolveSender(
        { tenantId: 'tenant-2', explicit: { from: 'news@example.com' }, saved: null, defaults: NO_SENDER },
        deps(),
      ),
    )
    expect(error.details?.[0]?.path).toBe('from')
  })

  it('falls back to the saved sender, then the default, then the platform', async () => {
    const saved = await resolveSender(
      {
        tenantId: TENANT,
        explicit: {},
        saved: { from: 'saved@example.com', replyTo: null },
        defaults: { from: 'default@example.com', replyTo: 'help@example.org' },
      },
      deps(),
    )
    expect(saved).toEqual({
      fromAddress: 'saved@example.com',
      replyTo: 'help@example.org',
      sendingDomainId: 'd-verified',
    })
    const fallback = await resolveSender(
      {
        tenantId: TENANT,
        explicit: { replyTo: 'me@example.org' },
        saved: null,
        defaults: { from: 'default@example.com', replyTo: 'help@example.org' },
      },
      deps(),
    )
    expect(fallback).toEqual({
      fromAddress: 'default@example.com',
      replyTo: 'me@example.org',
      sendingDomainId: 'd-verified',
    })
    const directory = deps()
    const platform = await resolveSender(
      { tenantId: TENANT, explicit: {}, saved: null, defaults: NO_SENDER },
      directory,
    )
    expect(platform).toEqual({ fromAddress: null, replyTo: null, sendingDomainId: null })
    expect(directory.domains.lookups).toEqual([])
  })

  it('keeps a saved sender whose domain failed since (the worker holds it) but passes over a deleted one', async () => {
    const held = await resolveSender(
      { tenantId: TENANT, explicit: {}, saved: null, defaults: { from: 'news@failed.test', replyTo: null } },
      deps(),
    )
    expect(held.sendingDomainId).toBe('d-failed')
    const gone = await resolveSender(
      {
        tenantId: TENANT,
        explicit: {},
        saved: { from: 'news@deleted.test', replyTo: null },
        defaults: { from: 'default@example.com', replyTo: null },
      },
      deps(),
    )
    expect(gone).toMatchObject({ fromAddress: 'default@example.com', sendingDomainId: 'd-verified' })
  })
})

describe('setDefaultSender', () => {
  it('stores a default on a verified domain and clears with nulls', async () => {
    const written: unknown[] = []
    const store = { updateDefaultSender: async (input: unknown) => void written.push(input) }
    const deps = { domains: domains({ 'example.com': verified }), store }
    await setDefaultSender({ tenantId: TENANT, sender: { from: 'a@example.com', replyTo: null } }, deps)
    await setDefaultSender({ tenantId: TENANT, sender: NO_SENDER }, deps)
    expect(written).toEqual([
      { tenantId: TENANT, from: 'a@example.com', replyTo: null },
      { tenantId: TENANT, from: null, replyTo: null },
    ])
    const error = await refusal(
      setDefaultSender({ tenantId: TENANT, sender: { from: 'a@other.test', replyTo: null } }, deps),
    )
    expect(error.code).toBe('unprocessable')
    expect(written).toHaveLength(2)
  })
})
