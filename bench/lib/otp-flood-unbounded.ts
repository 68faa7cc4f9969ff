import { Agent, request } from 'node:http'
import { loadavg } from 'node:os'
import { rateViolations } from '@fairlane/fairness'
import postgres from 'postgres'
import { cpuAvailable, cpuBetween, sampleCpu } from './cpu'
import { startBenchPlatform } from './platform'
import { startBenchRedis } from './redis-server'
import { percentile, round } from './stats'

/**
 * `pnpm bench:otp --flood [--clients 12]`: tenant A (plan 50/s, burst 50, made with `POST
 * /api/admin/tenants`) posts login codes from `clients` concurrent clients, each posting again as
 * soon as it is answered, for `seconds`; 3 s in, tenant B sends 30 codes one every 150 ms, each timed
 * from its POST until the sink has it. B also sends 30 the same way before the flood (idle). Reports
 * B's p50/p99 both ways, A's accepted / refused (by `details.limit`) / delivered (waiting for every
 * accepted one to arrive), and the relay's pass sizes (the worker's `fairlane_relay_pass_rows`).
 */
export interface UnboundedFloodOptions {
  seconds: number
  clients: number
  samples: number
}

const PLAN = { ratePerSec: 50, burst: 50 }
const B_START_MS = 3_000
const B_INTERVAL_MS = 150
/** The plan admission, not the request rate, is what should hold A back: requests up to 20 × the plan. */
const API_TENANT_RATE_FACTOR = 20

interface SinkMessage {
  to: string
  receivedAt: string
}

export async function runUnboundedFlood(options: UnboundedFloodOptions): Promise<Record<string, unknown>> {
  const progress = (line: string) => console.error(`bench:otp --flood ${line}`)
  const redis = await startBenchRedis()
  const platform = await startBenchPlatform('otp', {
    REDIS_URL: redis.url,
    TRANSACTIONAL_RATE_PER_SEC: String(PLAN.ratePerSec),
    TRANSACTIONAL_BURST: String(PLAN.burst),
    API_TENANT_RATE_FACTOR: String(API_TENANT_RATE_FACTOR),
  })
  const agent = new Agent({ keepAlive: true, maxSockets: options.clients + 8 })
  const post = (path: string, token: string, body: unknown) =>
    new Promise<{ status: number; body: string }>((resolve) => {
      const payload = Buffer.from(JSON.stringify(body))
      const req = request(
        new URL(path, platform.webUrl),
        {
          method: 'POST',
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': payload.byteLength,
          },
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
          )
          res.on('error', () => resolve({ status: 0, body: '' }))
        },
      )
      req.setTimeout(30_000, () => req.destroy(new Error('timed out')))
      req.on('error', () => resolve({ status: 0, body: '' }))
      req.end(payload)
    })
  const sinkMessages = async (since: number): Promise<SinkMessage[]> =>
    (await (
      await fetch(`${platform.inboxUrl}/messages?since=${since}&fields=to,receivedAt`)
    ).json()) as SinkMessage[]
  const tenant = async (name: string) => {
    const created = await post('/api/admin/tenants', platform.adminToken, { name, plan: PLAN })
    if (created.status !== 201) throw new Error(`tenant ${name}: ${created.status} ${created.body}`)
    return JSON.parse(created.body) as { id: string; apiKey: string }
  }
  const relayPasses = async () => {
    const text = await (await fetch(platform.metricsUrl)).text()
    const value = (name: string) =>
      Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? 0)
    const buckets = [
      ...text.matchAll(/^fairlane_relay_pass_rows_bucket\{[^}]*le="([^"]+)"[^}]*\} (\S+)$/gm),
    ].map((match) => [match[1] as string, Number(match[2])] as const)
    return {
      count: value('fairlane_relay_pass_rows_count'),
      sum: value('fairlane_relay_pass_rows_sum'),
      buckets,
    }
  }

  try {
    const a = await tenant('Flooder')
    const b = await tenant('Bystander')
    const otp = (key: string, to: string) =>
      post('/api/v1/messages', key, { to, template: 'otp', variables: { code: '123456', appName: 'Bench' } })
    for (let i = 0; i < 10; i++) await otp(b.apiKey, `warm-${i}@b.test`)
    // B's warm-up spends some of its own burst; its idle codes must not be parked behind that.
    await new Promise((resolve) => setTimeout(resolve, 2_000))

    const postMs: Record<string, number[]> = { idle: [], flood: [] }
    /** B: `samples` codes one every 150 ms; each accepted one's send time. */
    const bTraffic = async (prefix: 'idle' | 'flood') => {
      const sentAt = new Map<string, number>()
      for (let i = 0; i < options.samples; i++) {
        const to = `${prefix}-${i}@b.test`
        const started = Date.now()
        const answer = await otp(b.apiKey, to)
        postMs[prefix]?.push(Date.now() - started)
        if (answer.status === 202) sentAt.set(to, started)
        else progress(`B's ${to} answered ${answer.status} ${answer.body}`)
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + B_INTERVAL_MS - Date.now())))
      }
      return sentAt
    }
    const bLatencies = async (sentAt: Map<string, number>, since: number) => {
      const deadline = Date.now() + 60_000
      for (;;) {
        const arrived = (await sinkMessages(since)).filter((mail) => sentAt.has(mail.to))
        if (arrived.length >= sentAt.size || Date.now() > deadline) {
          return arrived.map((mail) => Date.parse(mail.receivedAt) - (sentAt.get(mail.to) as number))
        }
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    }

    progress(`idle: B sends ${options.samples} codes, one every ${B_INTERVAL_MS} ms`)
    const idleStart = Date.now()
    const idle = await bLatencies(await bTraffic('idle'), idleStart)

    progress(`flood: A posts from ${options.clients} clients as fast as answered for ${options.seconds} s`)
    const passesBefore = await relayPasses()
    const cpuBefore = sampleCpu(platform.processGroups)
    const loadBefore = loadavg()[0] ?? 0
    const floodStart = Date.now()
    const floodEnd = floodStart + options.seconds * 1000
    const accepted: string[] = []
    const refused: Record<string, number> = {}
    let answered = 0
    const floodClients = Array.from({ length: options.clients }, async (_, client) => {
      for (let i = 0; Date.now() < floodEnd; i++) {
        const to = `a-${client}-${i}@a.test`
        const answer = await otp(a.apiKey, to)
        answered++
        if (answer.status === 202) {
          accepted.push(to)
          continue
        }
        let limit = String(answer.status)
        try {
          limit =
            (JSON.parse(answer.body) as { error?: { details?: { limit?: string } } }).error?.details?.limit ??
            limit
        } catch {}
        refused[limit] = (refused[limit] ?? 0) + 1
      }
    })
    await new Promise((resolve) => setTimeout(resolve, B_START_MS))
    const bFloodStart = Date.now()
    const acceptedBeforeB = accepted.length
    const bSent = await bTraffic('flood')
    const acceptedDuringB = accepted.length - acceptedBeforeB
    const floodedLatencies = await bLatencies(bSent, bFloodStart)
    await Promise.all(floodClients)
    const floodSeconds = (Date.now() - floodStart) / 1000
    const passesAfterFlood = await relayPasses()
    const cpu = cpuBetween(cpuBefore, sampleCpu(platform.processGroups))
    const loadAfter = loadavg()[0] ?? 0

    progress(`A: ${accepted.length} accepted; waiting for them to drain at ${PLAN.ratePerSec}/s`)
    const drainDeadline = Date.now() + (accepted.length / PLAN.ratePerSec) * 1000 + 60_000
    let aMail: SinkMessage[] = []
    for (;;) {
      aMail = (await sinkMessages(floodStart)).filter((mail) => mail.to.endsWith('@a.test'))
      if (aMail.length >= accepted.length || Date.now() > drainDeadline) break
      await new Promise((resolve) => setTimeout(resolve, 1000))
    }
    const acceptedSet = new Set(accepted)
    const delivered = new Set(aMail.map((mail) => mail.to))
    const idleP99 = percentile(idle, 99)
    const floodedP99 = percentile(floodedLatencies, 99)
    const received = aMail.map((mail) => Date.parse(mail.receivedAt)).sort((x, y) => x - y)
    const firstA = received[0] ?? floodStart
    const lastA = received.at(-1) ?? floodStart
    const stages = {
      idle: await bStages(platform.databaseUrl, 'idle'),
      flood: await bStages(platform.databaseUrl, 'flood'),
    }
    const pct = (values: number[]) => ({
      p50: round(percentile(values, 50)),
      p99: round(percentile(values, 99)),
    })
    return {
      mode: 'flood-unbounded',
      plan: PLAN,
      clients: options.clients,
      seconds: options.seconds,
      bIdleSamples: idle.length,
      bIdleP50Ms: round(percentile(idle, 50)),
      bIdleP99Ms: round(idleP99),
      bFloodedSamples: floodedLatencies.length,
      bFloodedP50Ms: round(percentile(floodedLatencies, 50)),
      bFloodedP99Ms: round(floodedP99),
      bFloodedMaxMs: round(Math.max(...floodedLatencies)),
      floodedOverIdleP99: round(floodedP99 / idleP99, 2),
      goalMet: floodedP99 <= 2 * idleP99 && floodedP99 <= 300,
      aRequestsPerSec: round(answered / floodSeconds),
      aAccepted: accepted.length,
      aAcceptedWhileBSent: acceptedDuringB,
      aRefusedByLimit: refused,
      aDelivered: [...acceptedSet].filter((to) => delivered.has(to)).length,
      aLost: [...acceptedSet].filter((to) => !delivered.has(to)).length,
      aDeliveredPerSec: round((received.length - 1) / Math.max(0.001, (lastA - firstA) / 1000)),
      aBucketViolations: rateViolations(received, PLAN),
      // Where B's time went: the POST's answer, created → claimed by the relay (`queued`), → sent (SMTP).
      bStagesMs: Object.fromEntries(
        (['idle', 'flood'] as const).map((phase) => [
          phase,
          {
            post: pct(postMs[phase] ?? []),
            relay: pct(stages[phase].map((row) => row.relayMs)),
            send: pct(stages[phase].map((row) => row.sendMs)),
            deferred: stages[phase].reduce((sum, row) => sum + row.deferred, 0),
          },
        ]),
      ),
      // Load average of the machine (other work on it shows here), and CPU per process over the flood.
      loadAverage1m: { before: round(loadBefore, 1), after: round(loadAfter, 1) },
      ...(cpuAvailable() ? { floodCpuCores: { ...cpu.cores, machine: cpu.machineCores } } : {}),
      relayPasses: {
        duringFlood: passesAfterFlood.count - passesBefore.count,
        meanRows: round(
          (passesAfterFlood.sum - passesBefore.sum) /
            Math.max(1, passesAfterFlood.count - passesBefore.count),
          1,
        ),
        // Cumulative, as Prometheus keeps it: passes that claimed at most `le` rows.
        passesWithAtMostRows: Object.fromEntries(
          passesAfterFlood.buckets.map(([le, count]) => [
            le,
            count - (passesBefore.buckets.find(([before]) => before === le)?.[1] ?? 0),
          ]),
        ),
      },
    }
  } finally {
    agent.destroy()
    await platform.stop()
    await redis.stop()
  }
}

/** B's messages of one phase: created → `queued` (the relay's pass), `queued` → sent, and `deferred` events. */
async function bStages(
  databaseUrl: string,
  phase: 'idle' | 'flood',
): Promise<{ relayMs: number; sendMs: number; deferred: number }[]> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
  try {
    const rows = await sql<{ relay_ms: number; send_ms: number; deferred: number }[]>`
      select
        extract(epoch from (q.at - m.created_at)) * 1000 as relay_ms,
        extract(epoch from (m.sent_at - q.at)) * 1000 as send_ms,
        (select count(*)::int from message_events d
          where d.tenant_id = m.tenant_id and d.message_id = m.id and d.type = 'deferred') as deferred
      from messages m
      join lateral (
        select min(e.at) as at from message_events e
        where e.tenant_id = m.tenant_id and e.message_id = m.id and e.type = 'queued'
      ) q on true
      where m.to_address like ${`${phase}-%@b.test`} and m.sent_at is not null`
    return rows.map((row) => ({
      relayMs: Number(row.relay_ms),
      sendMs: Number(row.send_ms),
      deferred: row.deferred,
    }))
  } finally {
    await sql.end()
  }
}
