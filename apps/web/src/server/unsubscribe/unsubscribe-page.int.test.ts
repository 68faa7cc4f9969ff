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
  // The campaign the links name, and its message to Jane: the one whose link is used.
  await harness.database.sql`
    insert into campaigns (id, tenant_id, name, subject, html, status)
    values (${campaignId}, ${tenantId}, 'News', 'News', '<p>News</p>', 'sending')`
  await harness.database.sql`
    insert into messages (tenant_id, campaign_id, contact_id, lane, status, to_address)
    values (${tenantId}, ${campaignId}, ${contactId}, 'bulk', 'sent', 'jane.doe@example.com')`
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
      .sql`select reason, scope from suppressions where tenant_id = ${tenantId}`
    expect(suppressed).toEqual([{ reason: 'unsubscribe', scope: 'marketing' }])
    // The campaign's message to Jane tells it once, as a one-click unsubscribe.
    const events = await harness.database.sql`
      select e.type, e.detail from message_events e join messages m on m.id = e.message_id
      where m.campaign_id = ${campaignId} and m.contact_id = ${contactId}`
    expect(events).toEqual([{ type: 'unsubscribed', detail: { source: 'one-click' } }])
  })

  it('says exactly what an unsubscribe changes: campaigns stop, sign-in codes and resets still arrive', async () => {
    const token = signUnsubscribeToken({ tenantId, contactId, campaignId }, key)
    const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ')
    const asked = text(await (await showUnsubscribe(token, deps)).text())
    expect(asked).toContain(
      'Messages you ask for, such as sign-in codes and password resets, still reach you.',
    )
    const form = new Request(`http://127.0.0.1:3000/u/${token}`, { method: 'POST' })
    const done = text(await (await submitUnsubscribe(form, token, deps)).text())
    expect(done).toContain(
      'You will not receive campaigns from Acme &lt;Shop&gt; any more. Messages you ask for, such as sign-in codes and password resets, still reach you.',
    )
  })

  it("/u/preview (a test send's link) says it is a test and changes nothing, for GET and POST", async () => {
    const before = await harness.database.sql`select count(*)::int as n from suppressions`
    const shown = await showUnsubscribe('preview', deps)
    expect(shown.status).toBe(200)
    const html = await shown.text()
    expect(html).toContain('<h1>Test message link</h1>')
    expect(html).toContain('This is the unsubscribe link of a test message. Nothing was changed')
    expect(html).not.toContain('Invalid unsubscribe link')
    const posted = await submitUnsubscribe(oneClick('preview'), 'preview', deps)
    expect(posted.status).toBe(200)
    expect(await posted.text()).toContain('Nothing was changed')
    expect(await harness.database.sql`select count(*)::int as n from suppressions`).toEqual(before)
  })
})
