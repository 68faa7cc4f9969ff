import { tenantShard } from '@fairlane/queue'
import type { Sql } from 'postgres'
import { databaseSeeder, type Plan, type Seeder, seedContacts } from '../seeder'

/** One of the `--tenants K` senders: a tenant of its own with its share of the recipients. */
export interface CampaignTenant {
  tenantId: string
  /** Its shard of each lane at the run's LANE_SHARDS (`tenantShard`). */
  shard: number
  recipients: number
  seeder: Seeder
}

/**
 * `count` tenant ids spread as evenly as they can be over `shards` lane shards: each next id is the
 * first of a fixed sequence that lands on the least-loaded shard so far. Fixed, so runs compare;
 * random ids would leave a shard empty as often as not with a handful of tenants.
 */
export function spreadTenantIds(count: number, shards: number): string[] {
  const loads = new Array<number>(shards).fill(0)
  const ids: string[] = []
  let candidate = 0
  while (ids.length < count) {
    const target = loads.indexOf(Math.min(...loads))
    for (;;) {
      candidate++
      const id = `00000000-0000-4000-8000-${candidate.toString(16).padStart(12, '0')}`
      if (tenantShard(id, shards) !== target) continue
      ids.push(id)
      loads[target] = (loads[target] ?? 0) + 1
      break
    }
  }
  return ids
}

/**
 * The senders of a `--tenants K` run: K tenants (the demo tenant stays out: the baselines and the
 * signing phase use its contacts), each with `plan`, seeded through the database (they have no API
 * key), the `emails` recipients split between them (`reader<i>@t<k>.<domain>`).
 */
export async function seedCampaignTenants(
  sql: Sql,
  input: { tenants: number; emails: number; shards: number; plan: Plan; domain: string },
): Promise<CampaignTenant[]> {
  const ids = spreadTenantIds(input.tenants, input.shards)
  const tenants: CampaignTenant[] = []
  for (const [index, tenantId] of ids.entries()) {
    const recipients =
      Math.floor(input.emails / input.tenants) + (index < input.emails % input.tenants ? 1 : 0)
    await sql`insert into tenants (id, name) values (${tenantId}, ${`Bench sender ${index + 1}`})
      on conflict (id) do nothing`
    const seeder = databaseSeeder(sql, tenantId)
    await seeder.setPlan(input.plan)
    await seedContacts(sql, {
      tenantId,
      count: recipients,
      prefix: 'reader',
      domain: `t${index + 1}.${input.domain}`,
    })
    tenants.push({ tenantId, shard: tenantShard(tenantId, input.shards), recipients, seeder })
  }
  return tenants
}
