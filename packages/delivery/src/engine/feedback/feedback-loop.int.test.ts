import { addressBounces, campaigns, contacts, messageEvents, messages, suppressions } from '@fairlane/db'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { and, asc, eq, inArray } from 'drizzle-orm'
import nodemailer from 'nodemailer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readMessageWithClaim } from '../../testing/claims'
import { type FeedbackStack, startFeedbackStack } from '../../testing/feedback-stack'
import { startTestPipeline, type TestPipeline } from '../../testing/pipeline'
import { createTenant, seedCampaign, seedQueuedMessages } from '../../testing/seed'

/**
 * The whole feedback loop, every part real and over real connections: the worker sends a campaign to
 * the mail sink, the sink (as a receiving provider would) accepts every message and later sends DSNs
 * and ARF reports to each message's VERP envelope sender, the inbound server reads them and applies
 * them, and the next campaign to the same audience leaves the suppressed addresses out.
 */
const env = setupTestEnvironment('feedback-loop')
const AUDIENCE = 100
let sink: MailSink
let feedback: FeedbackStack
let pipeline: TestPipeline
const db = () => pipeline.database.db

beforeAll(async () => {
  feedback = await startFeedbackStack(env.databaseUrl)
  sink = feedback.sink
  pipeline = await startTestPipeline(env, sink)
})

afterAll(async () => {
  await pipeline?.stop()
  await feedback?.close()
})

describe('the feedback loop', () => {
  it('bounces and complaints heard later: statuses, suppressions, events in order, and the next campaign skips them', async () => {
    const tenantId = await createTenant(db(), 'Newsletter Co')
    const first = await seedCampaign(db(), { tenantId, contacts: AUDIENCE, domain: 'readers.test' })
    const address = (index: number) => `${first.prefix}${index}@readers.test`
    const hard = [1, 2, 3, 4, 5].map(address)
    const soft = [6, 7, 8].map(address)
    const complaining = [9, 10].map(address)
    for (const to of hard) sink.faults.add({ match: to, bounce: '5.1.1', delayMs: 50 })
    for (const to of soft) sink.faults.add({ match: to, bounce: '4.2.2', times: 1 })
    for (const to of complaining) sink.faults.add({ match: to, complaint: true, delayMs: 20 })

    const byStatus = async (campaignId: string) => {
      const rows = await db()
        .select({ id: messages.id, to: messages.toAddress, status: messages.status })
        .from(messages)
        .where(and(eq(messages.tenantId, tenantId), eq(messages.campaignId, campaignId)))
      return rows
    }
    const count = (rows: { status: string }[], status: string) =>
      rows.filter((row) => row.status === status).length
    const rows = await eventually(
      async () => {
        const current = await byStatus(first.campaignId)
        const settled =
          current.length === AUDIENCE &&
          count(current, 'sent') === AUDIENCE - 7 &&
          count(current, 'bounced') === 5 &&
          count(current, 'complained') === 2
        return settled ? current : undefined
      },
      { what: 'the first campaign sent, 5 bounced and 2 complained', timeoutMs: 45_000, intervalMs: 200 },
    )
    const statusOf = new Map(rows.map((row) => [row.to, row.status]))
    for (const to of hard) expect(statusOf.get(to)).toBe('bounced')
    for (const to of complaining) expect(statusOf.get(to)).toBe('complained')
    for (const to of soft) expect(statusOf.get(to)).toBe('sent')

    // Every report reached the inbound server (none failed on the way).
    await eventually(
      async () => sink.notifier?.list().filter((record) => record.status === 'sent').length === 10,
      {
        what: 'the sink sent its 10 reports',
      },
    )

    // Suppressed: the 5 hard bounces with their diagnostic, the 2 complaints; the soft ones counted once.
    const suppressed = await db()
      .select({
        email: suppressions.email,
        reason: suppressions.reason,
        scope: suppressions.scope,
        detail: suppressions.detail,
      })
      .from(suppressions)
      .where(eq(suppressions.tenantId, tenantId))
      .orderBy(asc(suppressions.email))
    expect(suppressed.map((row) => row.email).sort()).toEqual([...hard, ...complaining].sort())
    for (const row of suppressed) {
      expect(row.scope).toBe('all')
      if (hard.includes(row.email)) {
        expect(row.reason).toBe('hard-bounce')
        expect(row.detail).toMatch(/5\.1\.1/)
      } else expect(row.reason).toBe('complaint')
    }
    const counted = await db()
      .select({ email: addressBounces.email, softCount: addressBounces.softCount })
      .from(addressBounces)
      .where(eq(addressBounces.tenantId, tenantId))
    expect(counted.map((row) => [row.email, row.softCount]).sort()).toEqual(soft.map((to) => [to, 1]).sort())
    const complainers = await db()
      .select({ email: contacts.email, unsubscribedAt: contacts.unsubscribedAt })
      .from(contacts)
      .where(and(eq(contacts.tenantId, tenantId), inArray(contacts.email, [...complaining, address(11)])))
    for (const contact of complainers) {
      if (complaining.includes(contact.email)) expect(contact.unsubscribedAt).not.toBeNull()
      else expect(contact.unsubscribedAt).toBeNull()
    }

    // Each message's story, in order.
    const idOf = new Map(rows.map((row) => [row.to, row.id]))
    const story = async (to: string) => {
      const events = await db()
        .select({ type: messageEvents.type, detail: messageEvents.detail })
        .from(messageEvents)
        .where(and(eq(messageEvents.tenantId, tenantId), eq(messageEvents.messageId, idOf.get(to) ?? '')))
        .orderBy(asc(messageEvents.at), asc(messageEvents.id))
      return events
    }
    const types = async (to: string) => (await story(to)).map((event) => event.type)
    expect(await types(address(50))).toEqual(['accepted', 'queued', 'sent'])
    expect(await types(hard[0] ?? '')).toEqual(['accepted', 'queued', 'sent', 'bounced'])
    expect((await story(hard[0] ?? '')).at(-1)?.detail).toMatchObject({ kind: 'hard', status: '5.1.1' })
    expect(await types(soft[0] ?? '')).toEqual(['accepted', 'queued', 'sent', 'bounced'])
    expect((await story(soft[0] ?? '')).at(-1)?.detail).toMatchObject({ kind: 'soft', status: '4.2.2' })
    const complained = await types(complaining[0] ?? '')
    expect(complained.slice(0, 4)).toEqual(['accepted', 'queued', 'sent', 'complained'])

    // The same bounce delivered twice (an MTA retrying its DSN) makes one event.
    const record = sink.notifier?.list().find((entry) => entry.recipients.includes(hard[1] ?? ''))
    if (!record?.reportMessageId) throw new Error('no report recorded for the second hard bounce')
    const duplicate = [
      'From: MAILER-DAEMON@mailsink.fairlane.localhost',
      `To: ${record.to}`,
      'Subject: Undelivered Mail Returned to Sender',
      `Message-ID: ${record.reportMessageId}`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain',
      '',
      'Delivery failed.',
      '--b1',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mailsink.fairlane.localhost',
      '',
      `Final-Recipient: rfc822; ${hard[1]}`,
      'Action: failed',
      'Status: 5.1.1',
      'Diagnostic-Code: smtp; 550 5.1.1 no such user',
      '',
      '--b1--',
      '',
    ].join('\r\n')
    const client = nodemailer.createTransport({
      host: '127.0.0.1',
      port: feedback.inbound.smtpPort,
      secure: false,
      ignoreTLS: true,
    })
    for (let time = 0; time < 2; time++) {
      await client.sendMail({ envelope: { from: '', to: record.to }, raw: duplicate })
    }
    client.close()
    expect((await types(hard[1] ?? '')).filter((type) => type === 'bounced')).toHaveLength(1)

    // The next campaign to the same audience leaves the 7 suppressed addresses out.
    const [second] = await db()
      .insert(campaigns)
      .values({
        tenantId,
        name: 'second issue',
        subject: 'Again, {{name}}',
        html: '<p>Hello again</p>',
        listId: first.listId,
        status: 'scheduled',
        sendAt: new Date(),
      })
      .returning({ id: campaigns.id })
    if (!second) throw new Error('second campaign not created')
    const sentBefore = sink.store.list().length
    const secondRows = await eventually(
      async () => {
        const current = await byStatus(second.id)
        const open = current.filter((row) => ['pending', 'queued', 'sending'].includes(row.status))
        return current.length > 0 && open.length === 0 && count(current, 'sent') === AUDIENCE - 7
          ? current
          : undefined
      },
      { what: 'the second campaign sent to the 93 unsuppressed', timeoutMs: 45_000, intervalMs: 200 },
    )
    const reached = new Set(secondRows.filter((row) => row.status === 'sent').map((row) => row.to))
    for (const to of [...hard, ...complaining]) expect(reached.has(to)).toBe(false)
    for (const to of soft) expect(reached.has(to)).toBe(true)
    const received = sink.store.list().slice(sentBefore)
    for (const to of [...hard, ...complaining])
      expect(received.some((mail) => mail.to.includes(to))).toBe(false)
  })

  it('never sends again a message whose own bounce came back before its send was recorded', async () => {
    const tenantId = await createTenant(db(), 'Codes Co')
    const to = 'gone-before-recorded@example.com'
    // The sink stores the message and sends its DSN, but drops the connection instead of answering
    // 250: the worker cannot tell the mail was accepted, keeps its claim, and retries once it expires.
    // The DSN leaves 500 ms later, well after the worker noted the unknown outcome.
    sink.faults.add({ match: to, bounce: '5.1.1', dropAfterData: true, delayMs: 500, times: 1 })
    const [seeded] = await seedQueuedMessages(db(), { tenantId, to: () => to })
    if (!seeded) throw new Error('seed failed')
    const row = () => readMessageWithClaim(db(), seeded.id)
    const types = async () =>
      (
        await db()
          .select({ type: messageEvents.type })
          .from(messageEvents)
          .where(and(eq(messageEvents.tenantId, tenantId), eq(messageEvents.messageId, seeded.id)))
          .orderBy(asc(messageEvents.at), asc(messageEvents.id))
      ).map((event) => event.type)

    // The bounce is in (event and suppression) while the row still reads `sending` under the kept claim.
    await eventually(async () => (await types()).includes('bounced'), {
      what: 'the bounce applied',
      timeoutMs: 20_000,
    })
    expect(await row()).toMatchObject({ status: 'sending', lastErrorCode: 'outcome_unknown' })
    const [suppression] = await db()
      .select({ messageId: suppressions.messageId, reason: suppressions.reason })
      .from(suppressions)
      .where(and(eq(suppressions.tenantId, tenantId), eq(suppressions.email, to)))
    expect(suppression).toEqual({ messageId: seeded.id, reason: 'hard-bounce' })

    // The retry after the claim expired claims the row, sees its own report, and settles it: no copy.
    await eventually(async () => (await row())?.status === 'bounced', {
      what: 'the retry settling the message as bounced',
      timeoutMs: 30_000,
      intervalMs: 100,
    })
    expect(sink.store.list({ to })).toHaveLength(1)
    expect(await row()).toMatchObject({ lockToken: null, sentAt: expect.any(Date) })
    // No `sent`: the attempt the server accepted was never recorded, and the report tells the rest.
    expect(await types()).toEqual(['queued', 'retrying', 'bounced'])
  })
})
