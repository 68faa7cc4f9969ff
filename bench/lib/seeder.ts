import { MESSAGE_PUBLISH_TOPIC, OUTBOX_CHANNEL } from '@fairlane/core'
import type { Sql } from 'postgres'
import type { DeliveryPlatform } from './delivery-platform'

export interface Plan {
  ratePerSec: number
  burst: number
  weight: number
}

/** "Unlimited": the admin API's highest rate, so only the platform itself sets the pace. */
export const UNLIMITED_PLAN: Plan = { ratePerSec: 100_000, burst: 100_000, weight: 1 }

export interface CampaignContent {
  name: string
  subject: string
  html: string
  text: string
}

/** Transactional mail with its own content (no template): the `default` lane. */
export interface ApiMail {
  to: string
  subject: string
  html: string
  text: string
}

/**
 * How a scenario puts work in: through the public and admin APIs when the web app runs, else
 * straight into the database the way those APIs write it (same rows, same outbox event, same
 * NOTIFY). Contacts always go straight in (`seedContacts`): tens of thousands in one statement.
 */
export interface Seeder {
  setPlan(plan: Plan): Promise<void>
  /** A campaign to every subscribed contact of the tenant, due at `sendAt`; its id. */
  scheduleCampaign(content: CampaignContent, sendAt: Date): Promise<string>
  /** The accepted messages' ids. */
  acceptMessages(mails: ApiMail[]): Promise<string[]>
}

export function seederFor(platform: DeliveryPlatform, sql: Sql): Seeder {
  return platform.api ? apiSeeder(platform.api, platform.tenantId) : databaseSeeder(sql, platform.tenantId)
}

/** `count` contacts `<prefix><i>@<domain>` with a name and attributes to personalise with. */
export async function seedContacts(
  sql: Sql,
  input: { tenantId: string; count: number; prefix: string; domain: string },
): Promise<void> {
  await sql`
    insert into contacts (tenant_id, email, name, attributes)
    select ${input.tenantId}, ${input.prefix} || g || '@' || ${input.domain},
      (array['Anna','Minh','Sofia','Kenji','Lucas','Amara','Noah','Ines'])[1 + g % 8] || ' ' ||
        (array['Nguyen','Müller','Silva','Tanaka','Dubois','Okafor','Smith','Rossi'])[1 + (g / 8) % 8],
      jsonb_build_object(
        'firstName', (array['Anna','Minh','Sofia','Kenji','Lucas','Amara','Noah','Ines'])[1 + g % 8],
        'city', (array['Hanoi','Lyon','Porto','Austin','Osaka','Lagos','Berlin','Lima'])[1 + g % 8],
        'plan', (array['free','plus','pro'])[1 + g % 3],
        'points', (g * 37) % 5000)
    from generate_series(1, ${input.count}) g`
}

function apiSeeder(api: NonNullable<DeliveryPlatform['api']>, tenantId: string): Seeder {
  const call = async (path: string, init: { method: string; body: unknown; token: string }) => {
    for (;;) {
      const response = await fetch(`${api.webUrl}${path}`, {
        method: init.method,
        headers: { authorization: `Bearer ${init.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(init.body),
        signal: AbortSignal.timeout(30_000),
      })
      const body = (await response.json().catch(() => null)) as Record<string, unknown> | null
      if (response.status === 429) {
        const seconds = Number(response.headers.get('retry-after') ?? '1')
        await new Promise((resolve) => setTimeout(resolve, Math.max(0.1, seconds) * 1000))
        continue
      }
      if (!response.ok) throw new Error(`${init.method} ${path}: ${response.status} ${JSON.stringify(body)}`)
      return body ?? {}
    }
  }
  return {
    async setPlan(plan) {
      await call(`/api/admin/tenants/${tenantId}`, { method: 'PATCH', body: { plan }, token: api.adminToken })
    },
    async scheduleCampaign(content, sendAt) {
      const body = await call('/api/v1/campaigns', {
        method: 'POST',
        body: { ...content, sendAt: sendAt.toISOString() },
        token: api.apiKey,
      })
      return String(body.id)
    },
    async acceptMessages(mails) {
      const ids: string[] = new Array(mails.length)
      let next = 0
      // A few requests in flight: enough to keep the web busy without starving the worker.
      const runners = Array.from({ length: 4 }, async () => {
        while (next < mails.length) {
          const index = next++
          const body = await call('/api/v1/messages', {
            method: 'POST',
            body: mails[index],
            token: api.apiKey,
          })
          ids[index] = String(body.id)
        }
      })
      await Promise.all(runners)
      return ids
    },
  }
}

/** Seeding straight into the database, as the APIs would write it (for tenants without an API key too). */
export function databaseSeeder(sql: Sql, tenantId: string): Seeder {
  return {
    async setPlan(plan) {
      await sql`update tenants set rate_per_sec = ${plan.ratePerSec}, burst = ${plan.burst},
        weight = ${plan.weight}, updated_at = now() where id = ${tenantId}`
    },
    async scheduleCampaign(content, sendAt) {
      const [row] = await sql<{ id: string }[]>`
        insert into campaigns (tenant_id, name, subject, html, text, status, send_at, send_at_local, time_zone)
        values (${tenantId}, ${content.name}, ${content.subject}, ${content.html}, ${content.text},
          'scheduled', ${sendAt}, ${sendAt.toISOString().slice(0, 16)}, 'UTC')
        returning id`
      if (!row) throw new Error('campaign insert returned nothing')
      return row.id
    },
    async acceptMessages(mails) {
      const ids: string[] = []
      for (let start = 0; start < mails.length; start += 500) {
        const batch = mails
          .slice(start, start + 500)
          .map((mail) => ({ to_address: mail.to, subject: mail.subject, html: mail.html, text: mail.text }))
        // As the accept path writes it: a queued message, its outbox event, one NOTIFY at COMMIT.
        const rows = await sql<{ id: string }[]>`
          with input as (
            select * from jsonb_to_recordset(${sql.json(batch as never)}::jsonb)
              as m(to_address text, subject text, html text, text text)
          ), inserted as (
            insert into messages (tenant_id, lane, status, to_address, subject, html, text, queued_at)
            select ${tenantId}, 'default', 'queued', to_address, subject, html, text, now()
            from input
            returning id, created_at
          ), events as (
            insert into outbox (tenant_id, topic, payload)
            select ${tenantId}, ${MESSAGE_PUBLISH_TOPIC},
              jsonb_build_object('v', 1, 'messageId', id, 'tenantId', ${tenantId}::uuid, 'lane', 'default',
                'generation', 0)
            from inserted
          )
          select id, pg_notify(${OUTBOX_CHANNEL}, '') from inserted`
        ids.push(...rows.map((row) => row.id))
      }
      return ids
    },
  }
}
