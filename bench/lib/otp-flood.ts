import { Agent, request } from 'node:http'
import { rateViolations } from '@fairlane/fairness'
import { startBenchPlatform } from './platform'
import { startBenchRedis } from './redis-server'
import { percentile, round } from './stats'

/**
 * `pnpm bench:otp --flood`: tenant A sends login codes at 20× its transactional rate from `clients`
 * concurrent clients for `seconds`, while tenant B sends one code every 100 ms (first alone: idle,
 * then during the flood). Reports B's p99 accept → SMTP-accepted both ways, A's accepted and delivered
 * counts (waiting for A's backlog to drain at its plan), out-of-order deliveries within A, bucket
 * violations at the sink and Redis commands per email (a Redis of the bench's own).
 */
export interface FloodOptions {
  seconds: number
  clients: number
  idleSamples: number
}

/** A's plan, low so that 20× of it is what a shared 2-core machine's API can accept. */
const PLAN = { ratePerSec: 10, burst: 20 }
const MULTIPLE = 20
const SLOTS = 10

interface SinkMessage {
  to: string
  receivedAt: string
}

export async function runFlood(options: FloodOptions): Promise<Record<string, unknown>> {
  const progress = (line: string) => console.error(`bench:otp --flood ${line}`)
  const redis = await startBenchRedis()
  const platform = await startBenchPlatform('otp', {
    REDIS_URL: redis.url,
    TRANSACTIONAL_RATE_PER_SEC: String(PLAN.ratePerSec),
    TRANSACTIONAL_BURST: String(PLAN.burst),
    TRANSACTIONAL_TENANT_SLOTS: String(SLOTS),
    // The API edge would refuse most of the flood; the lane's own fairness is what is measured here.
    API_TENANT_RATE_FACTOR: String(4 * MULTIPLE),
  })
  const agent = new Agent({ keepAlive: true, maxSockets: options.clients + 4 })
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
    const created = await post('/api/admin/tenants', platform.adminToken, { name })
    if (created.status !== 201) throw new Error(`tenant ${name}: ${created.status} ${created.body}`)
    return JSON.parse(created.body) as { id: string; apiKey: string }
  }

  try {
    const a = await tenant('Flooder')
    const b = await tenant('Bystander')
    const otp = (key: string, to: string) =>
      post('/api/v1/messages', key, { to, template: 'otp', variables: { code: '123456', appName: 'Bench' } })
    for (let i = 0; i < 10; i++) await otp(b.apiKey, `warm-${i}@b.test`)

    /** B: one code every 100 ms while `running()`; the send time of each accepted one. */
    const bTraffic = async (prefix: string, running: (i: number) => boolean) => {
      const sentAt = new Map<string, number>()
      for (let i = 0; running(i); i++) {
        const to = `${prefix}-${i}@b.test`
        const started = Date.now()
        const answer = await otp(b.apiKey, to)
        if (answer.status === 202) sentAt.set(to, started)
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 100 - Date.now())))
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

    progress(`idle: B sends ${options.idleSamples} codes, one every 100 ms`)
    const idleStart = Date.now()
    const idle = await bLatencies(await bTraffic('idle', (i) => i < options.idleSamples), idleStart)

    progress(
      `flood: A sends ${MULTIPLE}× its ${PLAN.ratePerSec}/s from ${options.clients} clients for ${options.seconds} s, B one code every 100 ms`,
    )
    const commandsBefore = await redis.commandCalls()
    const floodStart = Date.now()
    const floodEnd = floodStart + options.seconds * 1000
    /** A's recipients in the order their 202 came back: the order of acceptance. */
    const accepted: string[] = []
    let aRefused = 0
    const intervalMs = (1000 * options.clients) / (PLAN.ratePerSec * MULTIPLE)
    const floodClients = Array.from({ length: options.clients }, async (_, client) => {
      for (let i = 0; ; i++) {
        const due = floodStart + i * intervalMs + (client * intervalMs) / options.clients
        if (due >= floodEnd) return
        const wait = due - Date.now()
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
        const to = `a-${client}-${i}@a.test`
        const answer = await otp(a.apiKey, to)
        if (answer.status === 202) accepted.push(to)
        else aRefused++
      }
    })
    const flooded = bTraffic('flood', () => Date.now() < floodEnd)
    await Promise.all(floodClients)
    const floodedLatencies = await bLatencies(await flooded, floodStart)

    progress(`A: ${accepted.length} accepted; waiting for them to drain at ${PLAN.ratePerSec}/s`)
    const drainDeadline = Date.now() + (accepted.length / PLAN.ratePerSec) * 1000 + 60_000
    let aMail: SinkMessage[] = []
    for (;;) {
      aMail = (await sinkMessages(floodStart)).filter((mail) => mail.to.endsWith('@a.test'))
      if (aMail.length >= accepted.length || Date.now() > drainDeadline) break
      await new Promise((resolve) => setTimeout(resolve, 1000))
    }
    const commands = (await redis.commandCalls()) - commandsBefore
    const received = [...aMail].sort((x, y) => Date.parse(x.receivedAt) - Date.parse(y.receivedAt))
    const rank = new Map(accepted.map((to, index) => [to, index]))
    const outOfOrder = received.filter(
      (mail, index) => Math.abs((rank.get(mail.to) ?? -1) - index) > SLOTS,
    ).length
    const idleP99 = percentile(idle, 99)
    const floodedP99 = percentile(floodedLatencies, 99)
    return {
      mode: 'flood',
      plan: PLAN,
      slots: SLOTS,
      seconds: options.seconds,
      clients: options.clients,
      bIdleSamples: idle.length,
      bIdleP50Ms: round(percentile(idle, 50)),
      bIdleP99Ms: round(idleP99),
      bFloodedSamples: floodedLatencies.length,
      bFloodedP50Ms: round(percentile(floodedLatencies, 50)),
      bFloodedP99Ms: round(floodedP99),
      bFloodedMaxMs: round(Math.max(...floodedLatencies)),
      floodedOverIdleP99: round(floodedP99 / idleP99, 2),
      goalMet: floodedP99 <= 2 * idleP99,
      aAccepted: accepted.length,
      aRefusedAtApi: aRefused,
      aDelivered: received.length,
      aOutOfOrder: outOfOrder,
      bucketViolations: rateViolations(
        received.map((mail) => Date.parse(mail.receivedAt)),
        PLAN,
      ),
      redisCommandsPerEmail: round(commands / Math.max(1, received.length + floodedLatencies.length), 1),
    }
  } finally {
    agent.destroy()
    await platform.stop()
    await redis.stop()
  }
}
