import type { Lane } from '@fairlane/core'
import { MESSAGE_PUBLISH_TOPIC, OUTBOX_CHANNEL } from '@fairlane/core'
import { type Database, messages, outbox, tenants } from '@fairlane/db'
import { notifyOutbox } from '@fairlane/db/queries/outbox'
import { sql } from 'drizzle-orm'

/**
 * Test data written the way the API writes it (a queued message with rendered content and its outbox
 * row in one transaction, then NOTIFY), without depending on the web side's code.
 */

export async function createTenant(db: Database, name = 'Acme'): Promise<string> {
  const [row] = await db.insert(tenants).values({ name }).returning({ id: tenants.id })
  if (!row) throw new Error('tenant insert returned nothing')
  return row.id
}

export interface SeedMessage {
  id: string
  tenantId: string
  toAddress: string
  lane: Lane
}

export interface SeedOptions {
  tenantId: string
  lane?: Lane
  count?: number
  /** Recipient of the i-th message. */
  to?: (index: number) => string
  /** False: insert the messages without outbox rows (for sweeper tests). */
  publish?: boolean
  subject?: string
  /** The resolved sender, as accept writes it: From header value, Reply-To, the domain's id. */
  sender?: { from: string; replyTo?: string; sendingDomainId: string | null }
}

export async function seedQueuedMessages(db: Database, options: SeedOptions): Promise<SeedMessage[]> {
  const count = options.count ?? 1
  const lane = options.lane ?? 'critical'
  const to = options.to ?? ((index: number) => `user${index}@example.com`)
  const seeded: SeedMessage[] = []
  for (let start = 0; start < count; start += 500) {
    const size = Math.min(500, count - start)
    const rows = Array.from({ length: size }, (_, offset) => ({
      tenantId: options.tenantId,
      lane,
      status: 'queued' as const,
      template: 'otp',
      toAddress: to(start + offset),
      subject: options.subject ?? `Your code ${start + offset}`,
      html: `<p>Your code is <b>${100000 + start + offset}</b></p>`,
      text: `Your code is ${100000 + start + offset}`,
      queuedAt: new Date(),
      ...(options.sender
        ? {
            fromAddress: options.sender.from,
            replyTo: options.sender.replyTo ?? null,
            sendingDomainId: options.sender.sendingDomainId,
          }
        : {}),
    }))
    const inserted = await db.transaction(async (tx) => {
      const created = await tx
        .insert(messages)
        .values(rows)
        .returning({ id: messages.id, toAddress: messages.toAddress })
      if (options.publish !== false) {
        await tx.insert(outbox).values(
          created.map((row) => ({
            tenantId: options.tenantId,
            topic: MESSAGE_PUBLISH_TOPIC,
            payload: { v: 1, messageId: row.id, tenantId: options.tenantId, lane, generation: 0 },
          })),
        )
        await notifyOutbox(tx)
      }
      return created
    })
    seeded.push(...inserted.map((row) => ({ ...row, tenantId: options.tenantId, lane })))
  }
  return seeded
}

export interface SeedCampaignOptions {
  tenantId: string
  /** Contacts created for this campaign: `<prefix><i>@<domain>` with a `city` attribute. */
  contacts: number
  /** Distinguishes this campaign's recipients at the sink; defaults to a random tag. */
  prefix?: string
  domain?: string
  /** When the campaign is due; defaults to now. */
  sendAt?: Date
  subject?: string
  html?: string
}

/**
 * A scheduled campaign whose audience is a list of `contacts` new contacts, written in one statement
 * per table with generate_series (fast for tens of thousands), as the web app would leave it.
 */
export async function seedCampaign(
  db: Database,
  options: SeedCampaignOptions,
): Promise<{ campaignId: string; listId: string; prefix: string; domain: string }> {
  const prefix = options.prefix ?? `c${Math.random().toString(36).slice(2, 8)}-`
  const domain = options.domain ?? 'example.com'
  return db.transaction(async (tx) => {
    const [list] = await tx.execute<{ id: string }>(sql`
      insert into lists (tenant_id, name) values (${options.tenantId}, ${`list ${prefix}`}) returning id`)
    if (!list) throw new Error('list insert returned nothing')
    await tx.execute(sql`
      with created as (
        insert into contacts (tenant_id, email, name, attributes)
        select ${options.tenantId}, ${prefix} || g || '@' || ${domain}, 'Contact ' || g,
          jsonb_build_object('city', 'City ' || g)
        from generate_series(1, ${options.contacts}) g
        returning id
      )
      insert into list_members (tenant_id, list_id, contact_id)
      select ${options.tenantId}, ${list.id}, id from created`)
    const [campaign] = await tx.execute<{ id: string }>(sql`
      insert into campaigns (tenant_id, name, subject, html, list_id, status, send_at)
      values (${options.tenantId}, ${`campaign ${prefix}`}, ${options.subject ?? 'News for {{name}}'},
        ${options.html ?? '<p>Hello {{name}} from {{city}}</p>'}, ${list.id}, 'scheduled',
        ${(options.sendAt ?? new Date()).toISOString()}::timestamptz)
      returning id`)
    if (!campaign) throw new Error('campaign insert returned nothing')
    return { campaignId: campaign.id, listId: list.id, prefix, domain }
  })
}

/** Sets a tenant's bulk plan (what the admin API's PATCH does). */
export async function setPlan(
  db: Database,
  tenantId: string,
  plan: { ratePerSec: number; burst: number; weight?: number },
): Promise<void> {
  await db.execute(sql`
    update tenants set rate_per_sec = ${plan.ratePerSec}, burst = ${plan.burst},
      weight = ${plan.weight ?? 1}, updated_at = now()
    where id = ${tenantId}`)
}

/**
 * One OTP as the API writes it (queued critical row, its outbox row, NOTIFY), in a single statement:
 * for latency tests whose own process is busy delivering, so that the seeding's round trips through
 * that busy event loop do not count as delivery time (the API commits from a process of its own).
 */
export async function seedOtpInOneStatement(
  db: Database,
  input: { tenantId: string; to: string },
): Promise<{ id: string }> {
  const [row] = await db.execute<{ id: string }>(sql`
    with message as (
      insert into messages (tenant_id, lane, status, template, to_address, subject, html, text, queued_at)
      values (${input.tenantId}, 'critical', 'queued', 'otp', ${input.to}, 'Your code',
        '<p>Your code is <b>123456</b></p>', 'Your code is 123456', now())
      returning id, tenant_id
    ), event as (
      insert into outbox (tenant_id, topic, payload)
      select tenant_id, ${MESSAGE_PUBLISH_TOPIC}, jsonb_build_object(
        'v', 1, 'messageId', id, 'tenantId', tenant_id, 'lane', 'critical', 'generation', 0)
      from message
    )
    select id, pg_notify(${OUTBOX_CHANNEL}, '') from message`)
  if (!row) throw new Error('otp insert returned nothing')
  return { id: row.id }
}
