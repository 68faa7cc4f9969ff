import type { Sql } from 'postgres'

export interface BenchPlan {
  ratePerSec: number
  burst: number
  weight: number
}

/** ~3.5 KB of HTML newsletter, personalised: what a real campaign looks like to the renderer and the sink. */
export const NEWSLETTER_HTML = `<!doctype html><html><body style="font-family:Georgia,serif;max-width:600px;margin:auto">
<h1>Hello {{name}}, here is your December digest</h1>
<p>Good news from {{city}}: ${'our team has been busy shipping the things you asked for, and we want to tell you about them. '.repeat(8)}</p>
<h2>What is new</h2>
<ul>${Array.from({ length: 8 }, (_, i) => `<li><a href="https://example.com/news/${i}">Story ${i + 1}: a short headline that fits on one line</a> — a sentence or two about it, so the reader knows whether to click.</li>`).join('')}</ul>
<p>${'Thank you for reading, and for being with us this year. '.repeat(6)}</p>
<p style="color:#666;font-size:12px">You are receiving this because {{email}} subscribed to our newsletter.</p>
</body></html>`

export async function createBenchTenant(sql: Sql, name: string, plan: BenchPlan): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    insert into tenants (name, rate_per_sec, burst, weight)
    values (${name}, ${plan.ratePerSec}, ${plan.burst}, ${plan.weight}) returning id`
  if (!row) throw new Error('tenant insert returned nothing')
  return row.id
}

/**
 * A scheduled campaign to `count` new contacts `r<i>@<domain>`, written with generate_series (a
 * 1,000,000-contact audience in well under a minute): the state the web app leaves behind.
 */
export async function seedCampaign(
  sql: Sql,
  input: { tenantId: string; count: number; domain: string; sendAt: Date },
): Promise<string> {
  return sql.begin(async (tx) => {
    const [list] = await tx<{ id: string }[]>`
      insert into lists (tenant_id, name) values (${input.tenantId}, ${input.domain}) returning id`
    if (!list) throw new Error('list insert returned nothing')
    await tx`
      with created as (
        insert into contacts (tenant_id, email, name, attributes)
        select ${input.tenantId}, 'r' || g || '@' || ${input.domain}, 'Reader ' || g,
          jsonb_build_object('city', (array['Hanoi','Lyon','Porto','Austin','Osaka'])[1 + g % 5])
        from generate_series(1, ${input.count}) g
        returning id
      )
      insert into list_members (tenant_id, list_id, contact_id)
      select ${input.tenantId}, ${list.id}, id from created`
    const [campaign] = await tx<{ id: string }[]>`
      insert into campaigns (tenant_id, name, subject, html, list_id, status, send_at)
      values (${input.tenantId}, ${`Digest for ${input.domain}`}, ${'Your December digest, {{name}}'},
        ${NEWSLETTER_HTML}, ${list.id}, 'scheduled', ${input.sendAt})
      returning id`
    if (!campaign) throw new Error('campaign insert returned nothing')
    return campaign.id
  })
}

/** What the tenant's cancel does: the campaign and its unsent messages end (used between phases). */
export async function cancelCampaigns(sql: Sql, campaignIds: string[]): Promise<void> {
  if (campaignIds.length === 0) return
  // The platform is still dispatching and releasing these campaigns' rows: PostgreSQL may pick this
  // transaction as a deadlock's victim, and it is then simply run again, after a pause.
  for (let attempt = 1; ; attempt++) {
    try {
      await sql.begin(async (tx) => {
        await tx`update campaigns set status = 'cancelled', cancelled_at = now() where id in ${tx(campaignIds)}`
        await tx`update messages set status = 'cancelled'
          where campaign_id in ${tx(campaignIds)} and status in ('pending', 'queued')`
      })
      return
    } catch (error) {
      if ((error as { code?: string }).code !== '40P01' || attempt >= 10) throw error
      // Run again once the other side (a pacer's claim, a dispatch slice) is likely through: retried
      // at once, the same statements met the same claims five times in a row on a loaded machine.
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
    }
  }
}
