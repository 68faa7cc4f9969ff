import type { ReceiverAsk, ReceiverGate } from '@fairlane/core/delivery'
import { describe, expect, it } from 'vitest'
import {
  createReceiverGate,
  type ProviderBuckets,
  type ProviderDemand,
  type ReceiverStates,
  type WarmupCheck,
} from './receiver-gate'
import type { ProviderLimits } from './receivers/rules'
import { classifyReply } from './replies/classify'
import { aimdRateController } from './shaping/rate-controller'

const limits: ProviderLimits = { connections: 2, messagesPerConnection: 10, perMinute: 600 }
const backoff = { decrease: 0.5, pauseMs: 60_000, increasePerMinute: 10, minPerMinute: 6, holdDownMs: 5_000 }

/** `receiver_states` in memory, shared by the gates of several "workers". */
function memoryStates(): ReceiverStates & {
  rows: Map<string, { scope: string; state: unknown; lastReply: string | null }>
} {
  const rows = new Map<string, { scope: string; state: unknown; lastReply: string | null }>()
  const key = (egress: string, provider: string, scope: string) => `${egress}|${provider}|${scope}`
  return {
    rows,
    async read({ egress, provider, scopes }) {
      return scopes.flatMap((scope) => rows.get(key(egress, provider, scope)) ?? [])
    },
    async throttle(at, reply, change) {
      const current = rows.get(key(at.egress, at.provider, at.scope))
      const next = change(current?.state)
      const row = { scope: at.scope, state: JSON.parse(JSON.stringify(next.state)), lastReply: reply }
      rows.set(key(at.egress, at.provider, at.scope), row)
      return row
    },
  }
}

/** Token buckets on the test's clock: GCRA with the plan given per take, as the Redis script does. */
function memoryBuckets(clock: { now(): number }): ProviderBuckets & { taken: string[] } {
  const tat = new Map<string, number>()
  const taken: string[] = []
  return {
    taken,
    async take(bucket, plan) {
      const now = clock.now()
      const interval = 1000 / plan.ratePerSec
      const from = Math.max(tat.get(bucket) ?? now, now)
      const wait = from - now - (plan.burst - 1) * interval
      if (wait > 0) return { ok: false, retryAfterMs: wait, position: 1 }
      tat.set(bucket, from + interval)
      taken.push(bucket)
      return { ok: true }
    },
  }
}

/** An SMTP reply error as the MX transport rejects with (code, enhanced code, text). */
function replyError(text: string) {
  const [code, enhanced] = text.split(' ')
  return Object.assign(new Error(text), { reply: { code: Number(code), enhanced, text } })
}

function world(
  extra: { warmup?: WarmupCheck; demand?: 'memory'; weightOf?: (tenantId: string) => number } = {},
) {
  let nowMs = Date.UTC(2026, 11, 6, 12)
  const clock = { now: () => nowMs }
  const { demand, ...rest } = extra
  const states = memoryStates()
  const buckets = memoryBuckets(clock)
  const gateFor = (): ReceiverGate =>
    createReceiverGate({
      providerOf: async (domain) => ({ provider: domain === 'example.org' ? domain : 'google', limits }),
      egressFor: () => '127.0.0.2',
      states,
      controller: aimdRateController(backoff),
      buckets,
      readReply: (error) => {
        const reply = (error as { reply?: { code: number; enhanced?: string; text: string } }).reply
        return reply ? { class: classifyReply(reply), reply: reply.text } : undefined
      },
      criticalReserve: 0.1,
      clock,
      random: () => 0.5,
      ...rest,
      ...(demand ? { demand: memoryDemand(clock) } : {}),
    })
  return { clock, advance: (ms: number) => (nowMs += ms), states, buckets, gateFor }
}

/**
 * `ProviderDemand` on the test's clock: asks in the last 10 s as a rate a minute, and a tenant noted
 * waiting wants any share for 10 s (the Redis script's moving average, simplified).
 */
function memoryDemand(clock: { now(): number }): ProviderDemand {
  const tenants = new Map<string, { weight: number; asks: number[]; waitingUntil: number }>()
  return {
    async note({ notes }) {
      const now = clock.now()
      for (const note of notes) {
        const tenant = tenants.get(note.tenantId) ?? { weight: note.weight, asks: [], waitingUntil: 0 }
        tenant.weight = note.weight
        if (note.kind === 'ask') tenant.asks.push(now)
        else tenant.waitingUntil = now + 10_000
        tenants.set(note.tenantId, tenant)
      }
      return [...tenants].flatMap(([tenantId, tenant]) => {
        tenant.asks = tenant.asks.filter((at) => at > now - 10_000)
        if (tenant.asks.length === 0 && tenant.waitingUntil < now) return []
        const demandPerMinute = tenant.waitingUntil >= now ? Number.POSITIVE_INFINITY : tenant.asks.length * 6
        return [{ tenantId, weight: tenant.weight, demandPerMinute }]
      })
    },
  }
}

/** Every `stepMs` for `forMs`, each tenant asks once per message it still has; counts what went. */
async function contend(
  gate: ReceiverGate,
  advance: (ms: number) => void,
  demand: Record<string, { perStep: number }>,
  options: { stepMs: number; forMs: number },
) {
  const sent: Record<string, number> = Object.fromEntries(Object.keys(demand).map((id) => [id, 0]))
  for (let elapsed = 0; elapsed < options.forMs; elapsed += options.stepMs) {
    for (const [tenantId, { perStep }] of Object.entries(demand)) {
      for (let index = 0; index < perStep; index++) {
        if ((await gate.admit(ask(tenantId))).ok) sent[tenantId] = (sent[tenantId] ?? 0) + 1
      }
    }
    advance(options.stepMs)
  }
  return sent
}

const ask = (tenantId: string, extra: Partial<ReceiverAsk> = {}): ReceiverAsk => ({
  tenantId,
  lane: 'bulk',
  toAddress: `someone@gmail.test`,
  ...extra,
})

describe('the receiver gate', () => {
  it('routes mail to its provider from the tenant’s egress address, within the provider’s rate', async () => {
    const { gateFor } = world()
    const gate = gateFor()
    expect(
      gate.stillOpen?.({ ...ask('t1'), route: { provider: 'google', egressAddress: '127.0.0.2' } }),
    ).toMatchObject({ ok: true })
    // With the provider's own connection limits for the transport.
    expect(await gate.admit(ask('t1'))).toEqual({
      ok: true,
      route: {
        provider: 'google',
        egressAddress: '127.0.0.2',
        limits: { connections: 2, messagesPerConnection: 10 },
      },
    })
    // 600 a minute less the critical reserve: 9 a second shared, with a burst of 9.
    const answers = await Promise.all(Array.from({ length: 12 }, () => gate.admit(ask('t1'))))
    expect(answers.filter((answer) => answer.ok)).toHaveLength(8)
    expect(answers.find((answer) => !answer.ok)).toMatchObject({
      provider: 'google',
      reason: 'google is at its rate of 600 a minute',
    })
  })

  it('grants a batch what the provider’s rate allows in one ask, and defers the rest to its next slot', async () => {
    const { gateFor, advance } = world()
    const gate = gateFor()
    // 600 a minute less the critical reserve: 9 a second, one second of burst.
    const batch = await gate.admitUpTo?.(ask('t1'), 20)
    expect(batch).toMatchObject({
      ok: true,
      granted: 9,
      route: { provider: 'google', egressAddress: '127.0.0.2' },
    })
    expect(batch?.ok && batch.delayMs).toBeGreaterThan(0)
    expect(batch?.ok && batch.reason).toMatch(/google is at its rate/)
    expect((await gate.admit(ask('t2'))).ok).toBe(false)
    advance(1_000)
    expect(await gate.admitUpTo?.(ask('t1'), 3)).toMatchObject({ ok: true, granted: 3, delayMs: 0 })
  })

  it('grants a batch nothing while its provider is paused after a throttle', async () => {
    const { gateFor } = world()
    const gate = gateFor()
    const admitted = await gate.admit(ask('t1'))
    if (!admitted.ok) throw new Error('not admitted')
    await gate.learn({
      ...ask('t1'),
      route: admitted.route,
      outcome: { kind: 'failed', error: replyError('421 4.7.28 [127.0.0.2] slow down') },
    })
    expect(await gate.admitUpTo?.(ask('t1'), 5)).toMatchObject({ ok: false, provider: 'google' })
  })

  it('a throttle about the IP pauses the provider for every tenant and every worker, and cuts its rate', async () => {
    const { gateFor, advance, states } = world()
    const seen = gateFor()
    const other = gateFor()
    await seen.admit(ask('t1'))
    const verdict = await seen.learn({
      ...ask('t1'),
      route: { provider: 'google', egressAddress: '127.0.0.2' },
      outcome: {
        kind: 'failed',
        error: replyError(
          '421 4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address',
        ),
      },
    })
    // Paused 60 s, then one interval at the cut rate (300 a minute: 200 ms), spread by half of it.
    expect(verdict).toEqual({
      kind: 'defer',
      delayMs: 60_300,
      provider: 'google',
      reply:
        '421 4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address',
    })
    // Mail admitted before the throttle and still waiting for its slot is not sent after all.
    const route = { provider: 'google', egressAddress: '127.0.0.2' }
    expect(seen.stillOpen?.({ ...ask('t4'), route })).toMatchObject({ ok: false, provider: 'google' })
    const refused = await seen.admit(ask('t2'))
    expect(refused).toMatchObject({ ok: false, provider: 'google' })
    expect(refused.ok ? '' : refused.reason).toMatch(/^google paused after: 421 4\.7\.28/)
    // Another worker reads the stored state (its cache is empty): paused too.
    expect((await other.admit(ask('t3'))).ok).toBe(false)
    // Mail for another provider is not held up.
    expect((await seen.admit(ask('t2', { toAddress: 'a@example.org' }))).ok).toBe(true)
    expect([...states.rows.keys()]).toEqual(['127.0.0.2|google|'])
    advance(61_000)
    expect((await seen.admit(ask('t2'))).ok).toBe(true)
  })

  it('a throttle naming one tenant’s DKIM domain slows that tenant alone at that provider', async () => {
    const { gateFor, states } = world()
    const gate = gateFor()
    const route = { provider: 'google', egressAddress: '127.0.0.2' }
    const verdict = await gate.learn({
      ...ask('t1', { signingDomain: 'news.acme.test' }),
      route,
      outcome: {
        kind: 'failed',
        error: replyError(
          '421 4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your DKIM domain [news.acme.test]',
        ),
      },
    })
    expect(verdict.kind).toBe('defer')
    expect([...states.rows.keys()]).toEqual(['127.0.0.2|google|t1'])
    expect((await gate.admit(ask('t1', { signingDomain: 'news.acme.test' }))).ok).toBe(false)
    expect((await gate.admit(ask('t2', { signingDomain: 'other.test' }))).ok).toBe(true)
  })

  it('keeps the critical lane’s reserve: login codes go when bulk has used the shared rate', async () => {
    const { gateFor, buckets } = world()
    const gate = gateFor()
    while ((await gate.admit(ask('t1'))).ok) {}
    expect((await gate.admit(ask('t1', { lane: 'default' }))).ok).toBe(false)
    expect(await gate.admit(ask('t2', { lane: 'critical' }))).toMatchObject({ ok: true })
    expect(buckets.taken.at(-1)).toBe('rx:127.0.0.2:google:critical')
  })

  it('leaves a failure that is not throttling (mailbox full, a network error) to the usual retry', async () => {
    const { gateFor, states } = world()
    const gate = gateFor()
    const route = { provider: 'google' }
    for (const error of [
      replyError('452 4.2.2 The email account that you tried to reach is over quota'),
      new Error('ECONNRESET'),
    ]) {
      expect(await gate.learn({ ...ask('t1'), route, outcome: { kind: 'failed', error } })).toEqual({
        kind: 'as-is',
      })
    }
    expect(await gate.learn({ ...ask('t1'), route, outcome: { kind: 'accepted' } })).toEqual({
      kind: 'as-is',
    })
    expect(states.rows.size).toBe(0)
  })

  it('in-flight throttles after the cut are one event: the rate is halved once', async () => {
    const { gateFor, states } = world()
    const gate = gateFor()
    const route = { provider: 'google', egressAddress: '127.0.0.2' }
    const error = replyError(
      '451 4.7.650 The mail server [192.0.2.1] has been temporarily rate limited due to IP reputation.',
    )
    for (let reply = 0; reply < 20; reply++)
      await gate.learn({ ...ask('t1'), route, outcome: { kind: 'failed', error } })
    const [row] = [...states.rows.values()]
    expect(row?.state).toMatchObject({ ratePerMinute: 300, lastThrottledPerMinute: 600 })
  })

  it('holds a warming address’s mail over its daily cap until the next day, naming the cap', async () => {
    const { gateFor, clock } = world({
      warmup: {
        admit: async ({ provider }) =>
          provider === 'google'
            ? { ok: false, untilMs: clock.now() + 3_600_000, cap: 200, sendingDay: 1 }
            : { ok: true },
      },
    })
    const gate = gateFor()
    const refused = await gate.admit(ask('t1'))
    expect(refused).toMatchObject({
      ok: false,
      provider: 'google',
      egressAddress: '127.0.0.2',
      reason: '127.0.0.2 is warming up: 200 a day to google on its sending day 1',
    })
    expect(refused.ok ? 0 : refused.delayMs).toBeGreaterThanOrEqual(3_600_000)
    expect((await gate.admit(ask('t1', { toAddress: 'a@example.org' }))).ok).toBe(true)
  })

  it('shares the provider by weight between tenants that both have mail waiting', async () => {
    const weights: Record<string, number> = { a: 1, b: 1, heavy: 3 }
    const { gateFor, advance } = world({ demand: 'memory', weightOf: (tenantId) => weights[tenantId] ?? 1 })
    const gate = gateFor()
    // Both flood google for a minute, 40 asks a second each: far above its 540 a minute shared.
    const even = await contend(
      gate,
      advance,
      { a: { perStep: 4 }, b: { perStep: 4 } },
      { stepMs: 100, forMs: 60_000 },
    )
    expect((even.a ?? 0) + (even.b ?? 0)).toBeLessThanOrEqual(540 + 9)
    expect(even.a).toBeGreaterThan(250)
    expect(Math.abs((even.a ?? 0) - (even.b ?? 0))).toBeLessThanOrEqual(10)
    // By weight: three to one.
    advance(60_000)
    const weighted = await contend(
      gate,
      advance,
      { heavy: { perStep: 4 }, b: { perStep: 4 } },
      { stepMs: 100, forMs: 60_000 },
    )
    expect((weighted.heavy ?? 0) / (weighted.b ?? 1)).toBeGreaterThan(2.7)
    expect((weighted.heavy ?? 0) / (weighted.b ?? 1)).toBeLessThan(3.3)
  })

  it('lets a tenant asking less than its part take all it asks, and a lone tenant the whole rate', async () => {
    const { gateFor, advance } = world({ demand: 'memory' })
    const gate = gateFor()
    const alone = await contend(gate, advance, { a: { perStep: 4 } }, { stepMs: 100, forMs: 30_000 })
    expect(alone.a).toBeGreaterThanOrEqual(270 - 1)
    // A trickle (one ask a second) and a flood: every one of the trickle's goes at once, and the
    // flood takes all the rest.
    const mixed = await contend(
      gate,
      advance,
      { trickle: { perStep: 1 }, a: { perStep: 40 } },
      { stepMs: 1_000, forMs: 60_000 },
    )
    expect(mixed.trickle).toBe(60)
    expect((mixed.a ?? 0) + (mixed.trickle ?? 0)).toBeGreaterThan(520)
  })

  it('names the share when it turns a tenant away', async () => {
    const { gateFor, advance } = world({ demand: 'memory' })
    const gate = gateFor()
    // a floods (and has mail waiting); a second later b asks for ten at once: its share's burst goes.
    for (let index = 0; index < 20; index++) await gate.admit(ask('a'))
    advance(1_000)
    const answers = await Promise.all(Array.from({ length: 10 }, () => gate.admit(ask('b'))))
    const refused = answers.find((answer) => !answer.ok)
    expect(refused).toMatchObject({ ok: false, provider: 'google' })
    expect(refused?.ok ? '' : refused?.reason).toBe(
      'google is shared by 2 senders: this one’s share is 270 a minute',
    )
  })
})
