import postgres, { type Sql } from 'postgres'
import type { DeliveryPlatform } from '../delivery-platform'
import { type ApiMail, seedContacts, seederFor, UNLIMITED_PLAN } from '../seeder'
import { countByMessageId, type SinkClient, type SinkReceipt, sinkClient } from '../sink-client'
import { round } from '../stats'
import { NEWSLETTER } from '../throughput/newsletter'

export interface ChaosOptions {
  /** Campaign recipients (bulk lane). */
  campaign: number
  /** Transactional API messages with their own content (default lane), accepted while the campaign runs. */
  api: number
  /** Share delivered (at the sink) when the worker gets SIGKILL, then FLUSHALL, then the 451s. */
  killAtPercent: number
  flushAtPercent: number
  faultAtPercent: number
  /** How long the sink answers every message 451. */
  faultMs: number
  /** FLUSHALL on the queue Redis. The caller passes it because only the caller knows that Redis is its own. */
  flushQueueRedis: () => Promise<unknown>
  /** Gives up waiting for every message to end after this long (the result then says what is open). */
  timeoutMs: number
  log: (line: string) => void
}

const DOMAIN = 'chaos.test'
/** The sink's answer during the fault phase; its text tells its retries apart from the kill's. */
export const FAULT_REPLY = '451 4.7.1 chaos: try later'

interface Timeline {
  startedAt: number
  killedAt?: number
  deliveredAtKill?: number
  /** The killed worker's claims: rows in `sending` right after the kill, with their attempts then. */
  inFlightAtKill?: Map<string, number>
  workerBackAfterMs?: number
  flushedAt?: number
  deliveredAtFlush?: number
  faultFrom?: number
  faultUntil?: number
}

/**
 * Campaign and API mail while the platform is hurt three ways in turn: at `killAtPercent` delivered
 * the worker's process group gets SIGKILL and a new worker starts; at `flushAtPercent` the queue
 * Redis is flushed; at `faultAtPercent` the sink answers 451 for `faultMs`. Then every message must
 * end: counted at the sink by Message-ID (lost, duplicates), and by status in PostgreSQL (nothing
 * left `sending`). Definitions are in the result's `definitions`.
 */
export async function runChaos(platform: DeliveryPlatform, options: ChaosOptions) {
  const { log } = options
  const total = options.campaign + options.api
  const sql = postgres(platform.databaseUrl, { max: 2, onnotice: () => {} })
  const sink = sinkClient(platform.inboxUrl)
  try {
    const seeder = seederFor(platform, sql)
    await seeder.setPlan(UNLIMITED_PLAN)
    await sink.clear()
    log(`seeding ${options.campaign} contacts`)
    await seedContacts(sql, {
      tenantId: platform.tenantId,
      count: options.campaign,
      prefix: 'c',
      domain: DOMAIN,
    })
    const timeline: Timeline = { startedAt: Date.now() }
    const campaignId = await seeder.scheduleCampaign(NEWSLETTER, new Date(Date.now() + 2_000))
    log(`campaign of ${options.campaign} due in 2 s; accepting ${options.api} API messages meanwhile`)
    const acceptance: { done: boolean; error?: unknown } = { done: false }
    const accepted = seeder.acceptMessages(apiMails(options.api)).then(
      (ids) => {
        acceptance.done = true
        return ids
      },
      (error: unknown) => {
        acceptance.error = error
        return []
      },
    )
    const finished = await drive(platform, sql, sink, options, timeline, () => {
      if (acceptance.error) throw acceptance.error
      return !acceptance.done
    })
    const apiIds = await accepted
    return await summarize(sql, sink, platform, { options, timeline, campaignId, apiIds, total, finished })
  } finally {
    await sink.clearFaults().catch(() => {})
    await sql.end({ timeout: 5 })
  }
}

export type ChaosResult = Awaited<ReturnType<typeof runChaos>>

function apiMails(count: number): ApiMail[] {
  return Array.from({ length: count }, (_, i) => ({
    to: `o${i}@${DOMAIN}`,
    subject: `Your order #${100_000 + i} has shipped`,
    html: `<p>Hello,</p><p>Your order <b>#${100_000 + i}</b> is on its way and should arrive within three days.</p>`,
    text: `Hello,\n\nYour order #${100_000 + i} is on its way and should arrive within three days.`,
  }))
}

/** Runs the faults in turn at their thresholds, then waits for every message to end; false on timeout. */
async function drive(
  platform: DeliveryPlatform,
  sql: Sql,
  sink: SinkClient,
  options: ChaosOptions,
  timeline: Timeline,
  /** True while API mail is still being accepted; throws if accepting it failed. */
  stillAccepting: () => boolean,
): Promise<boolean> {
  const total = options.campaign + options.api
  const faults = faultSequence(platform, sql, sink, options, timeline)
  const deadline = Date.now() + options.timeoutMs
  let next = 0
  let lastLog = 0
  while (Date.now() < deadline) {
    const accepting = stillAccepting()
    const count = await sink.count()
    if (Date.now() - lastLog > 5_000) {
      options.log(`${count} of ${total} at the sink`)
      lastLog = Date.now()
    }
    const fault = faults[next]
    if (fault?.due((count / total) * 100)) {
      await fault.run(count)
      next += 1
    } else if (!fault && !accepting && (await openMessages(sql)) === 0) {
      return true
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return false
}

interface Fault {
  /** Whether it is time, given the share delivered so far (percent). */
  due(deliveredPercent: number): boolean
  run(delivered: number): Promise<void>
}

/** SIGKILL and a new worker, FLUSHALL, 451s on, 451s off: each in turn, once. */
function faultSequence(
  platform: DeliveryPlatform,
  sql: Sql,
  sink: SinkClient,
  options: ChaosOptions,
  timeline: Timeline,
): Fault[] {
  const { log } = options
  return [
    {
      due: (percent) => percent >= options.killAtPercent,
      async run() {
        await platform.killWorker()
        timeline.killedAt = Date.now()
        timeline.deliveredAtKill = await sink.count()
        timeline.inFlightAtKill = await readSending(sql)
        log(
          `SIGKILL at ${timeline.deliveredAtKill} delivered, ${timeline.inFlightAtKill.size} sends in flight`,
        )
        await platform.startWorker()
        timeline.workerBackAfterMs = Date.now() - timeline.killedAt
        log(`new worker ready after ${timeline.workerBackAfterMs} ms`)
      },
    },
    {
      due: (percent) => percent >= options.flushAtPercent,
      async run(delivered) {
        await options.flushQueueRedis()
        timeline.flushedAt = Date.now()
        timeline.deliveredAtFlush = delivered
        log(`FLUSHALL at ${delivered} delivered`)
      },
    },
    {
      due: (percent) => percent >= options.faultAtPercent,
      async run(delivered) {
        await sink.addFault({ match: `@${DOMAIN}`, reply: FAULT_REPLY })
        timeline.faultFrom = Date.now()
        log(`sink answers ${FAULT_REPLY} for ${options.faultMs / 1000} s from ${delivered} delivered`)
      },
    },
    {
      due: () => Date.now() - (timeline.faultFrom ?? Number.POSITIVE_INFINITY) >= options.faultMs,
      async run() {
        await sink.clearFaults()
        timeline.faultUntil = Date.now()
        log('sink accepts again')
      },
    },
  ]
}

async function readSending(sql: Sql): Promise<Map<string, number>> {
  const rows = await sql<{ id: string; attempts: number }[]>`
    select message_id as id, attempts from message_claims where lock_token is not null`
  return new Map(rows.map((row) => [row.id, row.attempts]))
}

const openMessages = async (sql: Sql) =>
  (
    await sql<{ n: number }[]>`
      select count(*)::int as n from messages where status in ('pending', 'queued', 'sending')`
  )[0]?.n ?? 0

/** What each count of the chaos result means; printed with it. */
const DEFINITIONS = {
  delivered: 'distinct Message-IDs of this run received by the sink',
  lost: 'total − delivered',
  duplicates: 'receipts beyond the first for each Message-ID',
  reruns:
    'messages the SIGKILL caught in flight (status sending right after it) that were attempted again afterwards (attempts grew): bounded by what the lanes’ slots hold (`maxInFlight`: a bulk slot holds a whole batch’s claims)',
  sendingAtKill: 'rows in status sending right after the SIGKILL (the killed worker’s claims)',
  retriedAfter451: 'messages attempted more than once whose last error is the sink’s 451',
  retriedOtherwise: 'messages attempted more than once for any other reason (the kill, SMTP timeouts)',
  duplicatesAcrossKill:
    'the duplicates of Message-IDs first received before the kill and again after it: the at-least-once window SMTP leaves when a sender dies between the server’s accept and recording it',
  campaignStatus:
    'the campaign’s status 5 s after its last message ended: sent, unless no dispatch pass ran after the FLUSHALL',
}

async function summarize(
  sql: Sql,
  sink: SinkClient,
  platform: DeliveryPlatform,
  run: {
    options: ChaosOptions
    timeline: Timeline
    campaignId: string
    apiIds: string[]
    total: number
    finished: boolean
  },
) {
  const { timeline, total } = run
  const inFlight = timeline.inFlightAtKill ?? new Map<string, number>()
  const rows = await sql<{ id: string; status: string; attempts: number; last_error: string | null }[]>`
    select id, status, attempts, last_error from messages where tenant_id = ${platform.tenantId}`
  const expected = new Set(rows.map((row) => `<${row.id}@${platform.mailDomain}>`))
  const receipts = await sink.receipts()
  const ours = receipts.filter((receipt) => receipt.messageId && expected.has(receipt.messageId))
  const counted = countByMessageId(ours)
  const statuses: Record<string, number> = {}
  for (const row of rows) statuses[row.status] = (statuses[row.status] ?? 0) + 1
  const faulted = (row: { last_error: string | null }) =>
    row.last_error?.includes('chaos: try later') === true
  const campaignStatus = await settledCampaignStatus(sql, run.campaignId)
  const { config } = platform
  return {
    total,
    delivered: counted.distinct.size,
    lost: total - counted.distinct.size,
    duplicates: counted.duplicates,
    reruns: rows.filter((row) => row.attempts > (inFlight.get(row.id) ?? Number.POSITIVE_INFINITY)).length,
    killedAtPercent: round(((timeline.deliveredAtKill ?? 0) / total) * 100),
    finished: run.finished,
    messages: rows.length,
    statuses,
    stuckSending: statuses.sending ?? 0,
    sendingAtKill: timeline.inFlightAtKill?.size ?? null,
    // A bulk worker slot holds a batch's claims, a default one a transactional batch's (TX_BATCH_SIZE).
    maxInFlight:
      config.BULK_CONCURRENCY * config.BULK_BATCH_SIZE +
      config.DEFAULT_CONCURRENCY * config.TX_BATCH_SIZE +
      config.CRITICAL_CONCURRENCY,
    retriedAfter451: rows.filter((row) => row.attempts > 1 && faulted(row)).length,
    retriedOtherwise: rows.filter((row) => row.attempts > 1 && !faulted(row)).length,
    duplicatesAcrossKill: acrossKill(ours, counted.repeatedIds, timeline.killedAt),
    unexpectedReceipts: receipts.length - ours.length,
    campaignStatus,
    apiAccepted: run.apiIds.length,
    flushedAtPercent: round(((timeline.deliveredAtFlush ?? 0) / total) * 100),
    workerBackAfterMs: timeline.workerBackAfterMs ?? null,
    seconds: round((Date.now() - timeline.startedAt) / 1000),
    settings: {
      JOB_LOCK_MS: config.JOB_LOCK_MS,
      STALLED_INTERVAL_MS: config.STALLED_INTERVAL_MS,
      SEND_LOCK_MS: config.SEND_LOCK_MS,
      SMTP_TIMEOUT_MS: config.SMTP_TIMEOUT_MS,
      BULK_CONCURRENCY: config.BULK_CONCURRENCY,
      DEFAULT_CONCURRENCY: config.DEFAULT_CONCURRENCY,
      faultMs: run.options.faultMs,
    },
    definitions: DEFINITIONS,
  }
}

/** Extra receipts of Message-IDs first received before the kill and again after it. */
function acrossKill(receipts: SinkReceipt[], repeatedIds: string[], killedAt: number | undefined): number {
  if (killedAt === undefined) return 0
  const repeated = new Set(repeatedIds)
  const times = new Map<string, number[]>()
  for (const receipt of receipts) {
    if (!receipt.messageId || !repeated.has(receipt.messageId)) continue
    const list = times.get(receipt.messageId) ?? []
    list.push(Date.parse(receipt.receivedAt))
    times.set(receipt.messageId, list)
  }
  let count = 0
  for (const list of times.values()) {
    if (Math.min(...list) <= killedAt && Math.max(...list) > killedAt) count += list.length - 1
  }
  return count
}

/**
 * The campaign's status once the dispatcher's next passes had their chance to mark it `sent` (its
 * every message has ended by now; a pass runs every second).
 */
async function settledCampaignStatus(sql: Sql, campaignId: string): Promise<string | null> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const [row] = await sql<{ status: string }[]>`select status from campaigns where id = ${campaignId}`
    if (row?.status === 'sent' || Date.now() > deadline) return row?.status ?? null
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}
