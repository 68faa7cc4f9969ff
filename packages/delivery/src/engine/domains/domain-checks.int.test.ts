import {
  addDomain,
  type CheckDueDomainsOptions,
  DEFAULT_CHECK_DUE_OPTIONS,
  type DomainView,
} from '@fairlane/core'
import { createDatabase, type DatabaseHandle } from '@fairlane/db'
import { createDomainStore } from '@fairlane/db/queries/sending-domains'
import { createDnsLookup } from '@fairlane/mail/dns'
import {
  publishDomainRecords,
  setupTestEnvironment,
  startTestDnsServer,
  type TestDnsServer,
} from '@fairlane/testing'
import type { Job } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testLogger } from '../../testing/pipeline'
import { createTenant } from '../../testing/seed'
import { DOMAIN_CHECKS_SCHEDULER_ID, domainCheckHandlers } from './domain-checks-jobs'

/**
 * The scheduler's job against real PostgreSQL and a real DNS server: due domains are checked (and
 * only due ones), each by one worker at a time, pending ones give up after 72 hours.
 */
const env = setupTestEnvironment('domain-checks')
const RETURN_PATH_HOST = 'bounces.fairlane.test'
let database: DatabaseHandle
let dns: TestDnsServer
let tenantId: string

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 10 })
  dns = await startTestDnsServer()
  tenantId = await createTenant(database.db)
})
afterAll(async () => {
  await dns?.close()
  await database?.close()
})

const job = { name: DOMAIN_CHECKS_SCHEDULER_ID, id: 'test' } as Job
type Result = { checked: number; verified: number; pending: number; failed: number; errors: number }

function runJob(
  batch: CheckDueDomainsOptions = { batchSize: 3, perTenant: 3, maxBatches: 20, leaseMs: 60_000 },
): Promise<Result> {
  const handlers = domainCheckHandlers(
    {
      returnPathHost: RETURN_PATH_HOST,
      dnsServers: [dns.address],
      batch,
    },
    { db: database.db, logger: testLogger() },
  )
  return handlers[DOMAIN_CHECKS_SCHEDULER_ID]?.(job) as Promise<Result>
}

function add(name: string, owner = tenantId): Promise<DomainView> {
  return addDomain(
    { tenantId: owner, name },
    {
      store: createDomainStore(database.db),
      dns: createDnsLookup({ servers: [dns.address] }),
      clock: { now: () => new Date() },
      settings: { returnPathHost: RETURN_PATH_HOST },
      encryptionKeys: [{ kid: 'w1', key: Buffer.alloc(32, 9) }],
      maxDomains: 50,
    },
  )
}

async function row(id: string) {
  const [found] = await database.sql<
    { status: string; next_in_ms: number | null; checked: boolean; failure_reason: string | null }[]
  >`select status, failure_reason, last_checked_at is not null as checked,
      (extract(epoch from next_check_at - now()) * 1000)::float8 as next_in_ms
    from sending_domains where id = ${id}`
  return found
}

describe('the domain checks job', () => {
  it('checks only due domains: verifies a published one, reschedules a missing one in 5 minutes', async () => {
    const ready = await add('ready.example.com')
    const missing = await add('missing.example.com')
    const notDue = await add('later.example.com')
    publishDomainRecords(dns, ready)
    publishDomainRecords(dns, notDue)
    await database.sql`update sending_domains set next_check_at = now() - interval '1 second'
      where id in (${ready.id}, ${missing.id})`

    const result = await runJob()
    expect(result).toMatchObject({ checked: 2, verified: 1, pending: 1, errors: 0 })
    const verified = await row(ready.id)
    expect(verified?.status).toBe('verified')
    expect(verified?.next_in_ms).toBeGreaterThan(23 * 3600_000)
    const pending = await row(missing.id)
    expect(pending?.status).toBe('pending')
    expect(pending?.next_in_ms).toBeGreaterThan(4 * 60_000)
    expect(pending?.next_in_ms).toBeLessThanOrEqual(5 * 60_000)
    expect((await row(notDue.id))?.checked).toBe(false)
  })

  it('checks each due domain once when two workers run at the same time', async () => {
    const domains = await Promise.all(
      Array.from({ length: 9 }, (_, index) => add(`twice-${index}.example.com`)),
    )
    await database.sql`update sending_domains set next_check_at = now() - interval '1 second'
      where id in ${database.sql(domains.map((domain) => domain.id))}`
    const [first, second] = await Promise.all([runJob(), runJob()])
    expect((first?.checked ?? 0) + (second?.checked ?? 0)).toBe(9)
    const [counts] = await database.sql<{ checked: number; once: number }[]>`
      select count(*)::int as checked, count(*) filter (where check_count = 1)::int as once
      from sending_domains where id in ${database.sql(domains.map((domain) => domain.id))}
        and last_checked_at is not null`
    expect(counts).toEqual({ checked: 9, once: 9 })
  })

  it('stops checking a domain still pending 72 hours after it was added, saying why', async () => {
    const old = await add('old.example.com')
    await database.sql`update sending_domains
      set created_at = now() - interval '73 hours', next_check_at = now() - interval '1 second'
      where id = ${old.id}`
    expect((await runJob()).checked).toBe(1)
    const after = await row(old.id)
    expect(after).toMatchObject({ status: 'pending', next_in_ms: null })
    expect(after?.failure_reason).toMatch(/not found within 72 hours; verify again after publishing/)
  })

  it('checks another tenant’s one due domain in the first run while one tenant has 1,000 due (issue 27, M5)', async () => {
    const flooder = await createTenant(database.db, 'Flooder')
    const newcomer = await createTenant(database.db, 'Newcomer')
    const seed = await add('seed.flood.example.com', flooder)
    // 1,000 more of the flooder's, all due for longer than the newcomer's: copies of the seed's row.
    await database.sql`
      insert into sending_domains (tenant_id, name, return_path_label, dkim, next_check_at)
      select tenant_id, 'flood-' || n || '.example.com', return_path_label, dkim,
        now() - interval '1 hour' - n * interval '1 second'
      from sending_domains, generate_series(1, 1000) as n
      where id = ${seed.id}`
    await database.sql`update sending_domains set next_check_at = now() - interval '2 hours' where id = ${seed.id}`
    const theirs = await add('new.newcomer.example.com', newcomer)
    await database.sql`update sending_domains set next_check_at = now() - interval '1 second' where id = ${theirs.id}`

    const first = await runJob(DEFAULT_CHECK_DUE_OPTIONS)
    expect((await row(theirs.id))?.checked).toBe(true)
    // The flooder's turn is bounded per batch, and its checks went on in the same run.
    const [flood] = await database.sql<{ checked: number }[]>`
      select count(*)::int as checked from sending_domains
      where tenant_id = ${flooder} and last_checked_at is not null`
    expect(flood?.checked).toBeGreaterThan(0)
    expect(flood?.checked).toBeLessThanOrEqual(
      DEFAULT_CHECK_DUE_OPTIONS.perTenant * DEFAULT_CHECK_DUE_OPTIONS.maxBatches,
    )
    expect(first.checked + first.errors).toBe((flood?.checked ?? 0) + 1)
    await database.sql`delete from sending_domains where tenant_id in (${flooder}, ${newcomer})`
  })
})
