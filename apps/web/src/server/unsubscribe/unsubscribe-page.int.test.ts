import { signUnsubscribeToken, unsubscribeKey } from '@fairlane/core'
import { contacts } from '@fairlane/db'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWebHarness, seedTenant, type WebHarness } from '../test-support/harness'
import { showUnsubscribe, submitUnsubscribe, type UnsubscribeDeps } from './unsubscribe-page'

const env = setupTestEnvironment('web-unsubscribe')
const key = unsubscribeKey({
  secrets: [{ kid: 1, secret: 'unsubscribe-test-secret-0123456789abcdef' }],
  sessionSecret: 'session-test-secret-0123456789abcdef',
})
const campaignId = '00000000-0000-4000-8000-000000000001'

let harness: WebHarness
let deps: UnsubscribeDeps
let tenantId: string
let contactId: string

beforeAll(async () => {
  harness = createWebHarness(env)
  deps = { db: harness.database.db, key, clock: { now: () => new Date() }, logger: harness.logger }
  tenantId = (await seedTenant(harness, 'Acme <Shop>')).tenantId
  const [row] = await harness.database.db
    .insert(contacts)
    .values({ tenantId, email: 'jane.doe@example.com', name: 'Jane' })
    .returning({ id: contacts.id })
  contactId = row?.id ?? ''
})

afterAll(async () => {
  await harness?.close()
})

const oneClick = (token: string) =>
  new Request(`http://127.0.0.1:3000/u/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  })

async function unsubscribedAt(): Promise<Date | null> {
  const [row] = await harness.database.sql`select unsubscribed_at from contacts where id = ${contactId}`
  return (row?.unsubscribed_at as Date | null) ?? null
}

describe('/u/:token', () => {
  it('GET shows the tenant and the masked address, escaped, and changes nothing', async () => {
    const token = signUnsubscribeToken({ tenantId, contactId, campaignId }, key)
    const response = await showUnsubscribe(token, deps)
    expect(response.status).toBe(200)
    const html = await response.text()
    expect(html).toContain('Acme &lt;Shop&gt;')
    expect(html).toContain('ja******@example.com')
    expect(html).not.toContain('jane.doe@example.com')
    expect(html).toContain('<form method="post">')
    expect(await unsubscribedAt()).toBeNull()
  })

  it('refuses a tampered token with 400 for GET and POST, changing nothing', async () => {
    const token = signUnsubscribeToken({ tenantId, contactId, campaignId }, key)
    const tampered = `${token.slice(0, 30)}${token[30] === 'A' ? 'B' : 'A'}${token.slice(31)}`
    expect((await showUnsubscribe(tampered, deps)).status).toBe(400)
    const post = await submitUnsubscribe(oneClick(tampered), tampered, deps)
    expect(post.status).toBe(400)
    const form = await submitUnsubscribe(
      new Request('http://127.0.0.1:3000/u/x', { method: 'POST' }),
      'not-a-token',
      deps,
    )
    expect(form.status).toBe(400)
    expect(await form.text()).toContain('Invalid unsubscribe link')
    expect(await unsubscribedAt()).toBeNull()
  })

  it('checks the token before reading a byte of the body', async () => {
    let pulled = false
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulled = true
          controller.enqueue(new TextEncoder().encode('List-Unsubscribe=One-Click'))
          controller.close()
        },
      },
      { highWaterMark: 0 },
    )
    const request = new Request('http://127.0.0.1:3000/u/forged', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      duplex: 'half',
    } as RequestInit & { duplex: 'half' })
    const answer = await submitUnsubscribe(request, 'forged', deps)
    expect(answer.status).toBe(400)
    expect(pulled).toBe(false)
  })

  it('one-click POST unsubscribes at once with 200, idempotently, and suppresses the address', async () => {
    const token = signUnsubscribeToken({ tenantId, contactId, campaignId }, key)
    const first = await submitUnsubscribe(oneClick(token), token, deps)
    expect(first.status).toBe(200)
    expect(first.headers.get('location')).toBeNull()
    const at = await unsubscribedAt()
    expect(at).not.toBeNull()
    const again = await submitUnsubscribe(oneClick(token), token, deps)
    expect(again.status).toBe(200)
    expect(await unsubscribedAt()).toEqual(at)
    const page = await showUnsubscribe(token, deps)
    expect(await page.text()).toContain('You are unsubscribed')
    const suppressed = await harness.database
      .sql`select reason from suppressions where tenant_id = ${tenantId}`
    expect(suppressed).toEqual([{ reason: 'unsubscribe' }])
  })
})
