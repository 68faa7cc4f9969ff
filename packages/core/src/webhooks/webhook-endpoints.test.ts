import { describe, expect, it } from 'vitest'
import { AppError } from '../errors/app-error'
import { createWebhookEndpoint, MAX_WEBHOOK_ENDPOINTS_PER_TENANT } from './create-webhook-endpoint'
import { deleteWebhookEndpoint } from './delete-webhook-endpoint'
import { parseNewWebhookEndpoint, parseWebhookEndpointPatch } from './endpoint-input'
import { WEBHOOK_EVENT_TYPES } from './event-types'
import { getWebhookEndpoint } from './get-webhook-endpoint'
import { listWebhookEndpoints } from './list-webhook-endpoints'
import { memoryHosts, memoryWebhooks } from './memory-webhooks'
import { rotateWebhookSecret } from './rotate-webhook-secret'
import { updateWebhookEndpoint } from './update-webhook-endpoint'
import { WEBHOOK_SECRET_GRACE_MS } from './webhook-secret'

const T0 = new Date('2026-12-04T17:00:00.000Z')

function world(options: { allowPrivate?: boolean } = {}) {
  let now = T0
  const memory = memoryWebhooks(() => now)
  const hosts = memoryHosts({
    'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'internal.example.com': ['93.184.215.14', '10.0.0.7'],
    'metadata.example.com': ['169.254.169.254'],
    'loop.example.com': ['::ffff:127.0.0.1'],
  })
  const deps = {
    store: memory.endpointStore,
    clock: { now: () => now },
    hosts,
    settings: { allowPrivate: options.allowPrivate ?? false },
  }
  return { memory, hosts, deps, advance: (ms: number) => (now = new Date(now.getTime() + ms)) }
}

const TENANT = 'tenant-a'
const OTHER = 'tenant-b'

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  )
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`)
  return error
}

const create = (w: ReturnType<typeof world>, url: string, tenantId = TENANT) =>
  createWebhookEndpoint(
    { tenantId, endpoint: parseNewWebhookEndpoint({ url, events: ['email.sent'] }) },
    w.deps,
  )

describe('createWebhookEndpoint', () => {
  it('stores the endpoint enabled and answers a whsec_ secret of 32 random bytes, once', async () => {
    const w = world()
    const created = await create(w, ' https://hooks.example.com/in ')
    expect(created).toMatchObject({
      url: 'https://hooks.example.com/in',
      events: ['email.sent'],
      enabled: true,
    })
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32)
    const shown = await getWebhookEndpoint({ tenantId: TENANT, endpointId: created.id }, w.deps)
    expect(shown).not.toHaveProperty('secret')
    expect(JSON.stringify(await listWebhookEndpoints({ tenantId: TENANT }, w.deps))).not.toContain(
      created.secret,
    )
    const again = await create(w, 'https://hooks.example.com/in')
    expect(again.secret).not.toBe(created.secret)
  })

  it.each([
    ['http://hooks.example.com/in', 'url must start with https://'],
    ['https://127.0.0.1/in', 'loopback'],
    ['https://10.1.2.3/in', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://internal.example.com/in', 'internal.example.com resolves to 10.0.0.7'],
    ['https://metadata.example.com/in', 'link-local'],
    ['https://loop.example.com/in', 'loopback'],
    ['https://nowhere.example.com/in', 'does not resolve (ENOTFOUND)'],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, 'at most 2048 characters'],
  ])('refuses %s with a 400 naming url', async (url, why) => {
    const w = world()
    const error = await refusal(create(w, url))
    expect(error.code).toBe('validation_failed')
    expect(error.details?.[0]?.path).toBe('url')
    expect(error.details?.[0]?.message).toContain(why)
    expect(w.memory.state.endpoints.size).toBe(0)
  })

  it('refuses a tenant’s endpoint past the cap (422), not another tenant’s', async () => {
    const w = world()
    for (let n = 0; n < MAX_WEBHOOK_ENDPOINTS_PER_TENANT; n++) await create(w, 'https://hooks.example.com/in')
    const error = await refusal(create(w, 'https://hooks.example.com/in'))
    expect(error.code).toBe('unprocessable')
    expect(error.message).toContain(`already has ${MAX_WEBHOOK_ENDPOINTS_PER_TENANT} webhook endpoints`)
    await create(w, 'https://hooks.example.com/in', OTHER)
  })

  it('with WEBHOOK_ALLOW_PRIVATE takes http and private addresses without asking DNS', async () => {
    const w = world({ allowPrivate: true })
    await create(w, 'http://127.0.0.1:8080/in')
    await create(w, 'http://receiver.internal:9000/in')
    expect(w.hosts.asked).toEqual([])
    expect(w.memory.state.endpoints.size).toBe(2)
  })

  it('lists the valid event types when one is unknown, and deduplicates the rest', () => {
    let error: unknown
    try {
      parseNewWebhookEndpoint({ url: 'https://hooks.example.com', events: ['email.sent', 'email.exploded'] })
    } catch (thrown) {
      error = thrown
    }
    expect(error).toBeInstanceOf(AppError)
    const issue = (error as AppError).details?.[0]
    expect(issue?.path).toBe('events[1]')
    for (const type of WEBHOOK_EVENT_TYPES) expect(issue?.message).toContain(type)
    const parsed = parseNewWebhookEndpoint({
      url: 'x',
      events: ['email.sent', 'email.sent', 'domain.failed'],
    })
    expect(parsed.events).toEqual(['email.sent', 'domain.failed'])
    expect(() => parseNewWebhookEndpoint({ url: 'x', events: [] })).toThrow(/events: must name at least one/)
    expect(() => parseNewWebhookEndpoint({ events: ['email.sent'] })).toThrow(/url: is required/)
  })
})

describe('updateWebhookEndpoint', () => {
  it('switches off as manual, and on again clears a disable for failing with its streak and park', async () => {
    const w = world()
    const { id } = await create(w, 'https://hooks.example.com/in')
    const query = { tenantId: TENANT, endpointId: id }
    const off = await updateWebhookEndpoint({ ...query, patch: { enabled: false } }, w.deps)
    expect(off).toMatchObject({ enabled: false, disabledReason: 'manual', disabledAt: T0 })
    // What the engine writes when every delivery failed for 3 days.
    const row = w.memory.state.endpoints.get(id)
    if (!row) throw new Error('gone')
    Object.assign(row, {
      disabledReason: 'failing',
      failingSince: T0,
      parkedUntil: new Date(T0.getTime() + 1e6),
    })
    const on = await updateWebhookEndpoint({ ...query, patch: { enabled: true } }, w.deps)
    expect(on).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null, failingSince: null })
    expect(w.memory.state.endpoints.get(id)?.parkedUntil).toBeNull()
  })

  it('checks a new URL like a new endpoint and leaves the rest as it was', async () => {
    const w = world()
    const { id } = await create(w, 'https://hooks.example.com/in')
    const query = { tenantId: TENANT, endpointId: id }
    const error = await refusal(
      updateWebhookEndpoint(
        { ...query, patch: parseWebhookEndpointPatch({ url: 'https://10.0.0.1/' }) },
        w.deps,
      ),
    )
    expect(error.details?.[0]?.path).toBe('url')
    const patch = parseWebhookEndpointPatch({ events: ['email.bounced'], description: 'CRM' })
    const updated = await updateWebhookEndpoint({ ...query, patch }, w.deps)
    expect(updated).toMatchObject({
      url: 'https://hooks.example.com/in',
      events: ['email.bounced'],
      description: 'CRM',
    })
  })

  it('answers 404 for another tenant’s endpoint and changes nothing', async () => {
    const w = world()
    const { id } = await create(w, 'https://hooks.example.com/in')
    const query = { tenantId: OTHER, endpointId: id }
    expect((await refusal(updateWebhookEndpoint({ ...query, patch: { enabled: false } }, w.deps))).code).toBe(
      'not_found',
    )
    expect((await refusal(getWebhookEndpoint(query, w.deps))).code).toBe('not_found')
    expect((await refusal(deleteWebhookEndpoint(query, w.deps))).code).toBe('not_found')
    expect((await refusal(rotateWebhookSecret(query, w.deps))).code).toBe('not_found')
    expect(w.memory.state.endpoints.get(id)?.enabled).toBe(true)
  })
})

describe('rotateWebhookSecret', () => {
  it('answers a new secret and keeps the old one signing for the grace period', async () => {
    const w = world()
    const created = await create(w, 'https://hooks.example.com/in')
    const rotated = await rotateWebhookSecret({ tenantId: TENANT, endpointId: created.id }, w.deps)
    expect(rotated.secret).toMatch(/^whsec_/)
    expect(rotated.secret).not.toBe(created.secret)
    expect(rotated.previousSecretExpiresAt).toEqual(new Date(T0.getTime() + WEBHOOK_SECRET_GRACE_MS))
    expect(w.memory.state.endpoints.get(created.id)).toMatchObject({
      secret: rotated.secret,
      previousSecret: created.secret,
    })
    w.advance(WEBHOOK_SECRET_GRACE_MS + 1)
    const later = await getWebhookEndpoint({ tenantId: TENANT, endpointId: created.id }, w.deps)
    expect(later.previousSecretExpiresAt).toBeNull()
  })
})

describe('deleteWebhookEndpoint', () => {
  it('removes the endpoint and answers it as it was', async () => {
    const w = world()
    const { id, url } = await create(w, 'https://hooks.example.com/in')
    const deleted = await deleteWebhookEndpoint({ tenantId: TENANT, endpointId: id }, w.deps)
    expect(deleted.url).toBe(url)
    expect(w.memory.state.endpoints.size).toBe(0)
  })
})
