/**
 * Webhook fairness, through the real worker process: tenant A's endpoint hangs for the whole
 * WEBHOOK_TIMEOUT_MS (10 s by default) on every call while A produces 5,000 events; tenant B
 * produces 200 meanwhile, to a healthy endpoint. Measured: B's delay from event to arrival (p50,
 * p99, max), how many requests A's dead endpoint got (it is parked, not retried in front of B), the
 * time from A's recovery until all of A's are delivered, and duplicates (deliveries answered 2xx
 * more than once) and losses (events never delivered) for both.
 * Progress on stderr; the last line on stdout is one JSON object.
 *
 *   pnpm bench:webhooks [--a-events 5000] [--b-events 200] [--seconds 10]
 */
import { parseArgs } from 'node:util'
import { generateWebhookSecret } from '@fairlane/core'
import postgres from 'postgres'
import { startBenchPlatform } from './lib/platform'
import { percentile, round } from './lib/stats'
import { startBenchReceiver } from './lib/webhook-receiver'

const { values: args } = parseArgs({
  options: {
    'a-events': { type: 'string', default: '5000' },
    'b-events': { type: 'string', default: '200' },
    seconds: { type: 'string', default: '10' },
  },
})
const aEvents = Number(args['a-events'])
const bEvents = Number(args['b-events'])
const seconds = Number(args.seconds)
const progress = (line: string) => console.error(`bench:webhooks ${line}`)

const platform = await startBenchPlatform('webhooks', { WEBHOOK_ALLOW_PRIVATE: 'true' }, { web: false })
const sql = postgres(platform.databaseUrl, { max: 4, onnotice: () => {} })
const receiverA = await startBenchReceiver(true)
const receiverB = await startBenchReceiver(false)

async function tenantWithEndpoint(
  name: string,
  url: string,
): Promise<{ tenantId: string; endpointId: string }> {
  const [tenant] = await sql<{ id: string }[]>`insert into tenants (name) values (${name}) returning id`
  const [endpoint] = await sql<{ id: string }[]>`
    insert into webhook_endpoints (tenant_id, url, events, secret)
    values (${tenant?.id ?? ''}, ${url}, ${['email.sent']}, ${generateWebhookSecret()}) returning id`
  return { tenantId: tenant?.id ?? '', endpointId: endpoint?.id ?? '' }
}

/** `count` sent messages and their `sent` events in one statement, as mark-sent writes them. */
async function writeSentEvents(tenantId: string, count: number): Promise<{ id: string; at: Date }[]> {
  if (count === 0) return []
  return sql<{ id: string; at: Date }[]>`
    with m as (
      insert into messages (tenant_id, lane, status, to_address, subject, text, sent_at)
      select ${tenantId}, 'default', 'sent', 'reader-' || g || '@example.com', 'Hi', 'Hi', now()
      from generate_series(1, ${count}) g
      returning id, tenant_id)
    insert into message_events (tenant_id, message_id, type, detail)
    select tenant_id, id, 'sent', '{"response":"250 ok"}'::jsonb from m
    returning message_id as id, at`
}

async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const delivered = async (endpointId: string) => {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from webhook_deliveries where endpoint_id = ${endpointId} and status = 'delivered'`
  return row?.n ?? 0
}

try {
  const a = await tenantWithEndpoint('Hanging endpoint', receiverA.url)
  const b = await tenantWithEndpoint('Healthy endpoint', receiverB.url)
  progress(`A: ${aEvents} events to an endpoint that never answers; B: ${bEvents} events; over ${seconds} s`)

  // Both tenants' events arrive through the same `seconds`, in ticks of 100 ms.
  const ticks = seconds * 10
  const bEventAt = new Map<string, number>()
  const started = Date.now()
  for (let tick = 0; tick < ticks; tick++) {
    const share = (total: number) =>
      Math.floor(((tick + 1) * total) / ticks) - Math.floor((tick * total) / ticks)
    const [, bRows] = await Promise.all([
      writeSentEvents(a.tenantId, share(aEvents)),
      writeSentEvents(b.tenantId, share(bEvents)),
    ])
    for (const row of bRows) bEventAt.set(row.id, new Date(row.at).getTime())
    if (tick % 20 === 19)
      progress(
        `${(Date.now() - started) / 1000} s: B delivered ${receiverB.answered.length}/${bEvents}, A's endpoint got ${receiverA.requests} requests`,
      )
    const next = started + (tick + 1) * 100
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())))
  }
  await until("B's events at B's endpoint", () => receiverB.answered.length >= bEvents, 60_000)
  const bDelays = receiverB.answered.map(
    (request) => request.atMs - (bEventAt.get(request.messageId) ?? Number.NaN),
  )
  const aRequestsWhileHanging = receiverA.requests
  progress(
    `B: all ${bEvents} delivered, p99 ${round(percentile(bDelays, 99))} ms; A's endpoint got ${aRequestsWhileHanging} requests while hanging`,
  )

  receiverA.hanging = false
  const recoveredAt = Date.now()
  progress("A's endpoint answers again")
  let lastReport = Date.now()
  await until(
    "all of A's deliveries delivered",
    async () => {
      const n = await delivered(a.endpointId)
      if (Date.now() - lastReport > 5_000) {
        lastReport = Date.now()
        progress(`${round((Date.now() - recoveredAt) / 1000)} s after recovery: A delivered ${n}/${aEvents}`)
      }
      return n >= aEvents
    },
    600_000,
  )
  const aDrainMs = Date.now() - recoveredAt
  const firstAfterRecovery = receiverA.answered.reduce(
    (min, request) => Math.min(min, request.atMs),
    Number.POSITIVE_INFINITY,
  )
  const lostOf = (answered: { id: string }[], total: number) =>
    total - new Set(answered.map((request) => request.id)).size
  const duplicatesOf = (answered: { id: string }[]) =>
    answered.length - new Set(answered.map((request) => request.id)).size
  const result = {
    aEvents,
    bEvents,
    timeoutMs: platform.config.WEBHOOK_TIMEOUT_MS,
    bP50Ms: round(percentile(bDelays, 50)),
    bP99Ms: round(percentile(bDelays, 99)),
    bMaxMs: round(Math.max(...bDelays)),
    aRequestsWhileHanging,
    aFirstDeliveryAfterRecoveryMs: firstAfterRecovery - recoveredAt,
    aAllDeliveredAfterRecoveryMs: aDrainMs,
    aDeliveredPerSec: round(aEvents / ((Date.now() - firstAfterRecovery) / 1000)),
    duplicates: duplicatesOf(receiverA.answered) + duplicatesOf(receiverB.answered),
    lost: lostOf(receiverA.answered, aEvents) + lostOf(receiverB.answered, bEvents),
  }
  console.log(JSON.stringify(result))
} finally {
  await receiverA.close()
  await receiverB.close()
  await sql.end()
  await platform.stop()
}
