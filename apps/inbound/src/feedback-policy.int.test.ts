import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { addressBounces, contacts, messages, webhookEndpoints } from '@fairlane/db'
import { claimMessage, markMessageSent } from '@fairlane/db/queries/delivery'
import { eventually } from '@fairlane/testing'
import { and, eq, sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { counted, eventsOf, setupInbound, statusOf, suppressionOf } from './test-support/inbound'
import { arf, dsn } from './test-support/reports'
import { address, createContact, createMessage, createTenant, returnPathOf } from './test-support/seed'
import { sendReport } from './test-support/smtp-client'

/**
 * The policy end to end: reports sent over SMTP (nodemailer's client, the null sender) to the
 * inbound server, applied to messages in PostgreSQL.
 */
const harness = setupInbound()
let tenantId: string

beforeAll(async () => {
  tenantId = await createTenant(harness.db, 'Acme')
})

async function send(to: string, report: string | Buffer) {
  const result = await sendReport(harness.inbound.smtpPort, to, report)
  expect(result).toMatchObject({ ok: true })
}

describe('a hard bounce', () => {
  it('makes the message bounced and suppresses the address on every lane with the diagnostic', async () => {
    const to = address('gone')
    const id = await createMessage(harness.db, { tenantId, to })
    const before = await counted(harness.inbound, 'hard-bounce')
    await send(
      returnPathOf(id),
      dsn({
        to: returnPathOf(id),
        recipient: to,
        status: '5.1.1',
        diagnostic: '550 5.1.1 <x>: no such user',
      }),
    )
    expect(await statusOf(harness.db, id)).toBe('bounced')
    expect(await suppressionOf(harness.db, tenantId, to)).toEqual({
      reason: 'hard-bounce',
      scope: 'all',
      detail: '550 5.1.1 <x>: no such user',
      messageId: id,
    })
    expect(await eventsOf(harness.db, id)).toEqual([
      {
        type: 'bounced',
        tenantId,
        detail: {
          kind: 'hard',
          status: '5.1.1',
          action: 'failed',
          diagnostic: '550 5.1.1 <x>: no such user',
          remoteMta: 'mailbox.remote.test',
          reportingMta: 'mx.remote.test',
        },
      },
    ])
    expect(await counted(harness.inbound, 'hard-bounce')).toBe(before + 1)
  })

  it('arriving twice makes one event', async () => {
    const to = address('twice')
    const id = await createMessage(harness.db, { tenantId, to })
    const report = dsn({ to: returnPathOf(id), recipient: to, status: '5.1.1' })
    await send(returnPathOf(id), report)
    await send(returnPathOf(id), report)
    expect((await eventsOf(harness.db, id)).map((event) => event.type)).toEqual(['bounced'])
    expect(harness.logs.some((line) => line.messageId === id && line.duplicate === true)).toBe(true)
  })

  it('stores a diagnostic with CR/LF, control characters and bytes that are not UTF-8 safely', async () => {
    const to = 'mueller@example.de'
    const id = await createMessage(harness.db, { tenantId, to })
    const fixture = readFileSync(new URL('./fixtures/17-latin1-control-diagnostic.eml', import.meta.url))
    const report = Buffer.from(
      fixture
        .toString('latin1')
        .replace('b-aaaaaaaaaaaaaaaaaaaaaaaaaa-aaaaaaaaaa@bounces.fairlane.test', returnPathOf(id)),
      'latin1',
    )
    await send(returnPathOf(id), report)
    const [event] = await eventsOf(harness.db, id)
    const diagnostic = String(event?.detail?.diagnostic)
    expect(diagnostic).toMatch(/^550 5\.1\.1 Postfach M\ufffdller unbekannt/)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting none are left
    expect(diagnostic).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/)
    expect((await suppressionOf(harness.db, tenantId, to))?.detail).toBe(diagnostic)
  })
})

describe('many reports about one message, each with a Message-ID of its own', () => {
  /** The message's webhook deliveries: the tenant subscribed to bounces and complaints. */
  async function deliveriesOf(messageId: string) {
    const rows = await harness.db.execute<{ event_type: string }>(
      sql`select event_type from webhook_deliveries where message_id = ${messageId}`,
    )
    return rows.map((row) => row.event_type)
  }

  /** The first report, then the other 49 seven at a time (the message's row lock orders them). */
  async function sendFifty(verp: string, report: (index: number) => string) {
    await send(verp, report(0))
    for (let start = 1; start < 50; start += 7) {
      const batch = Array.from({ length: Math.min(7, 50 - start) }, (_, offset) => start + offset)
      await Promise.all(batch.map((index) => send(verp, report(index))))
    }
  }

  beforeAll(async () => {
    await harness.db.insert(webhookEndpoints).values({
      tenantId,
      url: 'https://hooks.example/fairlane',
      events: ['email.bounced', 'email.complained'],
      secret: `whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`,
    })
  })

  it('50 bounces make one bounced event and one webhook delivery', async () => {
    const to = address('flooded')
    const id = await createMessage(harness.db, { tenantId, to })
    const verp = returnPathOf(id)
    await sendFifty(verp, (index) =>
      dsn({ to: verp, recipient: to, status: '5.1.1', diagnostic: `550 5.1.1 try ${index}` }),
    )
    expect(await eventsOf(harness.db, id)).toMatchObject([
      { type: 'bounced', detail: { kind: 'hard', diagnostic: '550 5.1.1 try 0' } },
    ])
    expect(await deliveriesOf(id)).toEqual(['email.bounced'])
    expect(harness.logs.filter((line) => line.messageId === id && line.duplicate === true)).toHaveLength(49)
  })

  it('50 complaints make one complained event and one webhook delivery', async () => {
    const to = address('complains-a-lot')
    const contactId = await createContact(harness.db, tenantId, to)
    const id = await createMessage(harness.db, { tenantId, to, contactId })
    const verp = returnPathOf(id)
    await sendFifty(verp, () => arf({ to: verp, recipient: to }))
    expect((await eventsOf(harness.db, id)).map((event) => event.type)).toEqual([
      'complained',
      'unsubscribed',
    ])
    expect(await deliveriesOf(id)).toEqual(['email.complained'])
  })
})

describe('soft bounces', () => {
  async function softBounce(to: string) {
    const id = await createMessage(harness.db, { tenantId, to })
    await send(
      returnPathOf(id),
      dsn({ to: returnPathOf(id), recipient: to, status: '4.2.2', diagnostic: '452 4.2.2 mailbox full' }),
    )
    return id
  }

  async function softCount(to: string) {
    const [row] = await harness.db
      .select({ softCount: addressBounces.softCount })
      .from(addressBounces)
      .where(and(eq(addressBounces.tenantId, tenantId), eq(addressBounces.email, to)))
    return row?.softCount
  }

  it('are counted and suppress the address only at the third, leaving each message sent', async () => {
    const to = address('full')
    const first = await softBounce(to)
    await softBounce(to)
    expect(await softCount(to)).toBe(2)
    expect(await suppressionOf(harness.db, tenantId, to)).toBeUndefined()
    await softBounce(to)
    expect(await softCount(to)).toBe(3)
    expect(await suppressionOf(harness.db, tenantId, to)).toMatchObject({
      reason: 'hard-bounce',
      scope: 'all',
      detail: '3 soft bounces within 30 days without a delivery; the last: 452 4.2.2 mailbox full',
    })
    expect(await statusOf(harness.db, first)).toBe('sent')
    expect(await eventsOf(harness.db, first)).toMatchObject([
      { type: 'bounced', detail: { kind: 'soft', status: '4.2.2', action: 'delayed' } },
    ])
  })

  it('start again after a delivery in between', async () => {
    const to = address('recovers')
    await softBounce(to)
    await softBounce(to)
    // A message to the address went through after those bounces (and never bounced).
    await createMessage(harness.db, { tenantId, to, sentAt: new Date() })
    await softBounce(to)
    expect(await softCount(to)).toBe(1)
    expect(await suppressionOf(harness.db, tenantId, to)).toBeUndefined()
  })

  it('count a message once, however many notices it gets, and keep its first notice only', async () => {
    const to = address('notices')
    const id = await softBounce(to)
    await send(
      returnPathOf(id),
      dsn({ to: returnPathOf(id), recipient: to, status: '4.4.7', action: 'failed' }),
    )
    expect(await eventsOf(harness.db, id)).toMatchObject([
      { type: 'bounced', detail: { kind: 'soft', status: '4.2.2' } },
    ])
    expect(await softCount(to)).toBe(1)
  })

  it('are followed by the hard bounce that ends the same message', async () => {
    const to = address('delayed-then-gone')
    const id = await softBounce(to)
    await send(returnPathOf(id), dsn({ to: returnPathOf(id), recipient: to, status: '5.1.1' }))
    expect((await eventsOf(harness.db, id)).map((event) => event.detail?.kind)).toEqual(['soft', 'hard'])
    expect(await statusOf(harness.db, id)).toBe('bounced')
  })
})

describe('a complaint', () => {
  it('makes the message complained, suppresses the address and unsubscribes the contact', async () => {
    const to = address('angry')
    const contactId = await createContact(harness.db, tenantId, to)
    const id = await createMessage(harness.db, { tenantId, to, contactId })
    await send(returnPathOf(id), arf({ to: returnPathOf(id), recipient: to }))
    expect(await statusOf(harness.db, id)).toBe('complained')
    expect(await suppressionOf(harness.db, tenantId, to)).toEqual({
      reason: 'complaint',
      scope: 'all',
      detail: 'complaint (abuse) reported by ISP-FBL/2.0',
      messageId: id,
    })
    const [contact] = await harness.db
      .select({ at: contacts.unsubscribedAt })
      .from(contacts)
      .where(eq(contacts.id, contactId))
    expect(contact?.at).toBeInstanceOf(Date)
    expect(await eventsOf(harness.db, id)).toMatchObject([
      { type: 'complained', detail: { feedbackType: 'abuse', userAgent: 'ISP-FBL/2.0' } },
      { type: 'unsubscribed', detail: { source: 'complaint' } },
    ])
  })

  it('widens an unsubscribe (marketing only) to every lane', async () => {
    const to = address('unsubscribed')
    await harness.db.execute(
      sql`insert into suppressions (tenant_id, email, reason, scope) values (${tenantId}, ${to}, 'unsubscribe', 'marketing')`,
    )
    const id = await createMessage(harness.db, { tenantId, to })
    await send(returnPathOf(id), arf({ to: returnPathOf(id), recipient: to }))
    expect(await suppressionOf(harness.db, tenantId, to)).toMatchObject({ reason: 'complaint', scope: 'all' })
  })
})

describe('a bounce that overtakes the send', () => {
  it('is recorded at once and the status becomes bounced when the send is recorded', async () => {
    const to = address('early')
    const id = await createMessage(harness.db, { tenantId, to, status: 'queued' })
    const claim = await claimMessage(harness.db, { messageId: id, tenantId, lockMs: 60_000 })
    if (!claim) throw new Error('the message could not be claimed')
    await send(returnPathOf(id), dsn({ to: returnPathOf(id), recipient: to, status: '5.1.1' }))
    expect(await eventsOf(harness.db, id)).toMatchObject([{ type: 'bounced', detail: { kind: 'hard' } }])
    expect(await suppressionOf(harness.db, tenantId, to)).toMatchObject({ reason: 'hard-bounce' })
    expect(await statusOf(harness.db, id)).toBe('sending')
    expect(harness.inbound.settler.pending()).toBeGreaterThan(0)

    // The worker's own mark-sent, unchanged: it still finds its claim.
    expect(await markMessageSent(harness.db, { messageId: id, tenantId, lockToken: claim.lockToken })).toBe(
      true,
    )
    await eventually(async () => (await statusOf(harness.db, id)) === 'bounced', {
      what: 'the settled status',
    })
  })

  it('is found again after a restart (the events are the memory)', async () => {
    const to = address('restart')
    const id = await createMessage(harness.db, { tenantId, to, status: 'sending' })
    await send(returnPathOf(id), arf({ to: returnPathOf(id), recipient: to }))
    const { createFeedbackStore } = await import('@fairlane/db/queries/feedback')
    const refs = await createFeedbackStore(harness.db).findUnsettled({ since: new Date(Date.now() - 60_000) })
    expect(refs).toContainEqual({ tenantId, messageId: id })
    await harness.db.update(messages).set({ status: 'sent', sentAt: new Date() }).where(eq(messages.id, id))
    await eventually(async () => (await statusOf(harness.db, id)) === 'complained', {
      what: 'the settled status',
    })
  })
})

describe('what changes nothing', () => {
  it('a DSN without a readable status: accepted, counted unparseable and logged with what it said', async () => {
    const to = address('mystery')
    const id = await createMessage(harness.db, { tenantId, to })
    const before = await counted(harness.inbound, 'unparseable')
    await send(
      returnPathOf(id),
      dsn({ to: returnPathOf(id), recipient: to, status: '', diagnostic: 'something odd happened' }),
    )
    expect(await counted(harness.inbound, 'unparseable')).toBe(before + 1)
    expect(await eventsOf(harness.db, id)).toEqual([])
    expect(await statusOf(harness.db, id)).toBe('sent')
    const logged = harness.logs.find((line) => line.messageId === id && line.kind === 'unparseable')
    expect(logged).toMatchObject({ level: 40, tenantId, reason: 'delivery report without a readable status' })
    expect(JSON.stringify(logged?.parts)).toContain('something odd happened')
  })

  it('a report for an unknown or deleted message: accepted and dropped', async () => {
    const before = await counted(harness.inbound, 'unknown-message')
    const verp = returnPathOf(randomUUID())
    await send(verp, dsn({ to: verp, recipient: 'who@example.net' }))
    expect(await counted(harness.inbound, 'unknown-message')).toBe(before + 1)
  })
})
