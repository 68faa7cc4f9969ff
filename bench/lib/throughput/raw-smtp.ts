import { randomUUID } from 'node:crypto'
import { signUnsubscribeToken, unsubscribeKey } from '@fairlane/core'
import { renderCampaignMessage } from '@fairlane/mail/campaign'
import nodemailer from 'nodemailer'
import type { Sql } from 'postgres'
import { cpuBetween, sampleCpu } from '../cpu'
import type { CampaignContent } from '../seeder'

export interface RawSmtpResult {
  mails: number
  /** Mails the sink accepted per second, first send → last accept. */
  mailsPerSec: number
  /** Average rendered size (subject, HTML and text; before MIME encoding). */
  contentBytes: number
  /** CPU per mail of the send loop, by process (the loop itself runs in `bench`). */
  cpuMsPerEmail: Record<string, number>
}

/**
 * What pooled nodemailer alone does against the sink: the campaign rendered beforehand for the
 * tenant's first `count` contacts by the platform's own renderer (same footer, same headers, an
 * unsubscribe token of the real length), then sent by one pooled transport with the bulk lane's
 * connections, `concurrency` sends in flight, in this process. Nothing else runs in the send loop.
 */
export async function measureRawSmtp(input: {
  sql: Sql
  tenantId: string
  campaign: CampaignContent
  count: number
  smtpPort: number
  from: string
  appUrl: string
  mailDomain: string
  connections: number
  concurrency: number
  /** For CPU accounting, as `sampleCpu` takes them. */
  processGroups: Record<string, number>
}): Promise<RawSmtpResult> {
  const contacts = await input.sql<
    { id: string; email: string; name: string | null; attributes: Record<string, unknown> }[]
  >`select id, email, name, attributes from contacts where tenant_id = ${input.tenantId}
    order by id limit ${input.count}`
  const key = unsubscribeKey({
    secrets: [{ kid: 1, secret: randomUUID().repeat(2) }],
    sessionSecret: randomUUID().repeat(2),
  })
  const campaignId = randomUUID()
  let contentBytes = 0
  const mails = contacts.map((contact) => {
    const token = signUnsubscribeToken({ tenantId: input.tenantId, contactId: contact.id, campaignId }, key)
    const rendered = renderCampaignMessage({
      campaign: input.campaign,
      contact,
      unsubscribeUrl: new URL(`/u/${token}`, input.appUrl).toString(),
    })
    contentBytes += rendered.subject.length + rendered.html.length + rendered.text.length
    return {
      from: input.from,
      to: contact.email,
      messageId: `<raw-${randomUUID()}@${input.mailDomain}>`,
      ...rendered,
    }
  })

  const transport = nodemailer.createTransport({
    pool: true,
    host: '127.0.0.1',
    port: input.smtpPort,
    maxConnections: input.connections,
    maxMessages: 1_000,
  })
  try {
    let next = 0
    const cpuBefore = sampleCpu(input.processGroups)
    const start = performance.now()
    await Promise.all(
      Array.from({ length: input.concurrency }, async () => {
        while (next < mails.length) {
          const mail = mails[next++]
          if (mail) await transport.sendMail(mail)
        }
      }),
    )
    const seconds = (performance.now() - start) / 1000
    const cpu = cpuBetween(cpuBefore, sampleCpu(input.processGroups))
    return {
      cpuMsPerEmail: Object.fromEntries(
        Object.entries(cpu.cpuMs).map(([name, ms]) => [name, Math.round((ms / mails.length) * 100) / 100]),
      ),
      mails: mails.length,
      mailsPerSec: mails.length / seconds,
      contentBytes: Math.round(contentBytes / Math.max(1, mails.length)),
    }
  } finally {
    transport.close()
  }
}
