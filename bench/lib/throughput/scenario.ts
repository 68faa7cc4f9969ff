import { Redis } from 'ioredis'
import postgres, { type Sql } from 'postgres'
import type { DeliveryPlatform } from '../delivery-platform'
import { seedContacts, seederFor, UNLIMITED_PLAN } from '../seeder'
import { PG_STATS_SETTLE_MS } from '../server-stats'
import { countByMessageId, type SinkClient, sinkClient, waitForSink } from '../sink-client'
import { round } from '../stats'
import { seedBacklog, seedHistory, vacuumAnalyze } from './backlog'
import { startMeter, usagePerEmail } from './meter'
import { NEWSLETTER } from './newsletter'
import { measureRawQueue, type RawQueueResult } from './raw-queue'
import { measureRawSmtp, type RawSmtpResult } from './raw-smtp'
import { measureSigningCost } from './signing'
import { seedCampaignTenants } from './tenants'

export interface ThroughputOptions {
  emails: number
  /** Raw BullMQ and raw nodemailer on the same Redis and sink, in the same run. */
  baselines: boolean
  /** Wait for PostgreSQL's statistics before reading them (see PG_STATS_SETTLE_MS); tests skip it. */
  settleStats: boolean
  /** After the run: the same mails unsigned and DKIM-signed, the worker's CPU per email in each (`signing`). */
  signed?: boolean
  /** With `signed`: a third phase per round, unsigned at the signed phase's rate (`rateControl`). */
  signedRateControl?: boolean
  /** Pending bulk rows of another tenant, waiting through the run (`seedBacklog`). */
  backlog?: number
  /** Days of finished mail before today, `historyPerDay` a day (`seedHistory`). */
  historyDays?: number
  historyPerDay?: number
  /** K > 1: the campaign's recipients split over K tenants of their own, one campaign each, due together. */
  tenants?: number
  /** The Redis servers to meter (a cluster's masters); by default `platform.redisUrl`. */
  redisServerUrls?: string[]
  log: (line: string) => void
}

const DOMAIN = 'throughput.test'
/** How long the campaign is scheduled ahead, so the measurement window opens before it is due. */
const LEAD_MS = 3_000

/**
 * One tenant (or `tenants` of their own, each with its share of the recipients and a campaign due at
 * the same time) with an unlimited plan sends a campaign of `emails` realistic mails through the whole
 * path (dispatch → pacer → bulk lane workers → idempotent send → the sink process). Timed from the
 * first release (the first `queued` event) to the last `sent_at`, cross-checked with the sink's receipts;
 * every message must arrive exactly once. Around the run: Redis commands (INFO commandstats: the
 * Redis should be the benchmark's own), PostgreSQL transactions and tuples of the bench database,
 * and CPU per process, each per email.
 */
export async function runThroughput(platform: DeliveryPlatform, options: ThroughputOptions) {
  const { emails, log } = options
  // One connection: its own statistics are published before each reading (see readPgDatabaseStats).
  const sql = postgres(platform.databaseUrl, { max: 1, onnotice: () => {} })
  const redisServers = (options.redisServerUrls ?? [platform.redisUrl]).map(
    (url) => new Redis(url, { maxRetriesPerRequest: 1 }),
  )
  const sink = sinkClient(platform.inboxUrl)
  try {
    const seeder = seederFor(platform, sql)
    await seeder.setPlan(UNLIMITED_PLAN)
    log(`seeding ${emails} contacts`)
    await seedContacts(sql, { tenantId: platform.tenantId, count: emails, prefix: 'reader', domain: DOMAIN })
    const senders =
      (options.tenants ?? 1) > 1
        ? await seedCampaignTenants(sql, {
            tenants: options.tenants ?? 1,
            emails,
            shards: platform.config.LANE_SHARDS,
            plan: UNLIMITED_PLAN,
            domain: DOMAIN,
          })
        : [{ tenantId: platform.tenantId, seeder, shard: 0, recipients: emails }]
    const seeded = await seedAround(sql, platform.tenantId, options)

    const baselines = options.baselines ? await measureBaselines(platform, sql, sink, emails, log) : undefined
    await sink.clear()

    log(`${senders.length} campaign(s), ${emails} mails in all, due in ${LEAD_MS / 1000} s`)
    const sendAt = new Date(Date.now() + LEAD_MS)
    const campaignIds = await Promise.all(
      senders.map((sender) => sender.seeder.scheduleCampaign(NEWSLETTER, sendAt)),
    )
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, sendAt.getTime() - Date.now() - 200)))
    const meter = await startMeter({ sql, redisServers, processGroups: platform.processGroups })
    await waitForSink(sink, emails, log)
    await waitForTerminal(sql, campaignIds)
    if (options.settleStats) log(`waiting ${PG_STATS_SETTLE_MS / 1000} s for PostgreSQL's statistics`)
    const usage = await meter.stop(options.settleStats ? PG_STATS_SETTLE_MS : 0)

    const outcome = await readOutcome(sql, sink, platform.mailDomain, campaignIds)
    const signing = options.signed
      ? await measureSigningCost(
          platform,
          { sql, redisServers, sink },
          {
            emails,
            recipients: { prefix: 'reader', domain: DOMAIN },
            rateControl: options.signedRateControl ?? false,
            log,
          },
        )
      : undefined
    const emailsPerSec = emails / outcome.seconds
    const { config } = platform
    return {
      emails,
      seconds: round(outcome.seconds, 2),
      emailsPerSec: round(emailsPerSec),
      rawQueueJobsPerSec: baselines ? round(baselines.queue.jobsPerSec) : null,
      rawSmtpPerSec: baselines ? round(baselines.smtp.mailsPerSec) : null,
      efficiency: baselines ? round(emailsPerSec / baselines.smtp.mailsPerSec, 3) : null,
      delivered: outcome.delivered,
      duplicates: outcome.duplicates,
      missing: outcome.missing,
      statuses: outcome.statuses,
      retried: outcome.retried,
      sinkSeconds: round(outcome.sinkSeconds, 2),
      contentBytes: baselines?.smtp.contentBytes ?? null,
      rawQueueAddPerSec: baselines ? round(baselines.queue.addPerSec) : null,
      // CPU per mail of the raw nodemailer run's send loop (which runs in `bench`), for comparison.
      rawSmtpCpuMsPerEmail: baselines?.smtp.cpuMsPerEmail ?? null,
      settings: {
        BULK_CONCURRENCY: config.BULK_CONCURRENCY,
        BULK_SMTP_CONNECTIONS: config.BULK_SMTP_CONNECTIONS,
        LANE_SHARDS: config.LANE_SHARDS,
        PACER_HIGH_WATER: config.PACER_HIGH_WATER,
        PACER_HORIZON_MS: config.PACER_HORIZON_MS,
        DATABASE_POOL_MAX: config.DATABASE_POOL_MAX,
        plan: UNLIMITED_PLAN,
      },
      // Each sender's lane shard and recipients (one entry: the demo tenant's single campaign).
      senders: senders.map(({ shard, recipients }) => ({ shard, recipients })),
      redisServers: redisServers.length,
      ...usagePerEmail(usage, emails),
      ...(seeded ? { seeded } : {}),
      ...(signing ? { signing } : {}),
    }
  } finally {
    for (const redis of redisServers) redis.disconnect()
    await sql.end({ timeout: 5 })
  }
}

/** The backlog and history the run sends among (see backlog.ts), with the table sizes they made. */
async function seedAround(sql: Sql, tenantId: string, options: ThroughputOptions) {
  const backlog = options.backlog ?? 0
  const historyDays = options.historyDays ?? 0
  if (backlog === 0 && historyDays === 0) return undefined
  const historyPerDay = options.historyPerDay ?? 10_000
  const started = Date.now()
  if (backlog > 0) {
    options.log(`seeding a backlog of ${backlog} pending rows of another tenant`)
    await seedBacklog(sql, { rows: backlog, domain: 'backlog.test' })
  }
  if (historyDays > 0) {
    options.log(`seeding ${historyDays} days of history, ${historyPerDay} messages a day`)
    await seedHistory(sql, { days: historyDays, perDay: historyPerDay, tenantId, domain: 'history.test' })
  }
  options.log('vacuum analyze')
  await vacuumAnalyze(sql)
  const [sizes] = await sql<{ messages: number; events: number; messages_mb: number }[]>`
    select (select count(*) from messages)::int as messages,
      (select count(*) from message_events)::int as events,
      round(pg_total_relation_size('messages') / 1048576.0)::int as messages_mb`
  options.log(`seeded in ${round((Date.now() - started) / 1000, 1)} s: ${JSON.stringify(sizes)}`)
  return {
    backlog,
    historyDays,
    historyPerDay: historyDays > 0 ? historyPerDay : 0,
    messagesRows: sizes?.messages ?? 0,
    messageEventsRows: sizes?.events ?? 0,
    messagesMb: sizes?.messages_mb ?? 0,
  }
}

export type ThroughputResult = Awaited<ReturnType<typeof runThroughput>>

async function measureBaselines(
  platform: DeliveryPlatform,
  sql: Sql,
  sink: SinkClient,
  emails: number,
  log: (line: string) => void,
): Promise<{ queue: RawQueueResult; smtp: RawSmtpResult }> {
  const { config } = platform
  log(`raw BullMQ: ${emails} no-op jobs, concurrency ${config.BULK_CONCURRENCY}`)
  const queue = await measureRawQueue({
    redisUrl: platform.redisUrl,
    cluster: config.REDIS_CLUSTER,
    prefix: `${platform.queuePrefix}-raw`,
    jobs: emails,
    concurrency: config.BULK_CONCURRENCY,
  })
  log(`raw BullMQ: ${round(queue.jobsPerSec)} jobs/s`)
  await sink.clear()
  log(`raw nodemailer: ${emails} mails, ${config.BULK_SMTP_CONNECTIONS} pooled connections`)
  const smtp = await measureRawSmtp({
    sql,
    tenantId: platform.tenantId,
    campaign: NEWSLETTER,
    count: emails,
    smtpPort: platform.smtpPort,
    from: config.MAIL_FROM,
    appUrl: config.APP_URL,
    mailDomain: platform.mailDomain,
    connections: config.BULK_SMTP_CONNECTIONS,
    concurrency: config.BULK_CONCURRENCY,
    processGroups: platform.processGroups,
  })
  const stored = await sink.count()
  if (stored !== emails) throw new Error(`raw nodemailer: the sink holds ${stored} of ${emails} mails`)

  log(`raw nodemailer: ${round(smtp.mailsPerSec)} mails/s (${smtp.contentBytes} bytes of content each)`)
  return { queue, smtp }
}

/** The sink has them all; the last `sent` marks may still be on their way. */
async function waitForTerminal(sql: Sql, campaignIds: string[]): Promise<void> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const [row] = await sql<{ open: number }[]>`
      select count(*)::int as open from messages
      where campaign_id = any(${campaignIds}::uuid[]) and status in ('pending', 'queued', 'sending')`
    if (row?.open === 0) return
    if (Date.now() > deadline) throw new Error(`${row?.open} messages still open 30 s after the last arrival`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function readOutcome(sql: Sql, sink: SinkClient, mailDomain: string, campaignIds: string[]) {
  const ofRun = sql`campaign_id = any(${campaignIds}::uuid[])`
  // From the first release: its `queued` event (a bulk release writes no `queued_at`: the wide row
  // is not written until the outcome).
  const [timing] = await sql<{ seconds: number; retried: number }[]>`
    select extract(epoch from (max(m.sent_at) - (
        select min(e.at) from message_events e
        where e.type = 'queued' and e.message_id = any(array(select id from messages where ${ofRun})))))::float8 as seconds,
      count(*) filter (where m.attempts > 1)::int as retried
    from messages m where ${ofRun}`
  const statuses = Object.fromEntries(
    (
      await sql<{ status: string; n: number }[]>`
        select status, count(*)::int as n from messages where ${ofRun} group by status`
    ).map((row) => [row.status, row.n]),
  )
  const expected = new Set(
    (await sql<{ id: string }[]>`select id from messages where ${ofRun}`).map(
      (row) => `<${row.id}@${mailDomain}>`,
    ),
  )
  const receipts = (await sink.receipts()).filter(
    (receipt) => receipt.messageId && expected.has(receipt.messageId),
  )
  const counted = countByMessageId(receipts)
  let first = Number.POSITIVE_INFINITY
  let last = Number.NEGATIVE_INFINITY
  for (const receipt of receipts) {
    const at = Date.parse(receipt.receivedAt)
    first = Math.min(first, at)
    last = Math.max(last, at)
  }
  return {
    seconds: Number(timing?.seconds ?? Number.NaN),
    retried: timing?.retried ?? 0,
    statuses,
    delivered: counted.distinct.size,
    duplicates: counted.duplicates,
    missing: expected.size - counted.distinct.size,
    sinkSeconds: (last - first) / 1000,
  }
}
