/**
 * Transactional lane latency, through the real processes:
 *  - OTP accept → SMTP-accepted at the sink, p50/p99, one request every 100 ms on an idle platform
 *    (the clock starts just before the POST, the sink stamps the moment it accepted the DATA);
 *  - `POST /api/v1/messages` response time p50/p99 under an open-loop 200 requests/s, first with the
 *    worker delivering on the same machine, then (`apiAlone`) with the worker stopped — the API's own
 *    response time, as when workers run elsewhere — after which the worker starts again and every
 *    message accepted meanwhile must arrive (`acceptedThenDelivered`).
 * Progress on stderr; the last line on stdout is one JSON object.
 *
 *   pnpm bench:otp [--samples 300] [--rate 200] [--seconds 10] [--client http|fetch]
 *   pnpm bench:otp --flood [--seconds 20] [--clients 12] [--samples 30]
 *   pnpm bench:otp --flood --paced [--seconds 20] [--clients 12] [--samples 100]
 *
 * `--flood`: tenant A (plan 50/s, burst 50) posts login codes from `--clients` clients, each as fast as
 * it is answered, while tenant B's codes are timed (`lib/otp-flood-unbounded.ts`). `--paced`: A sends
 * at 20× a 10/s plan instead, with the API's limits opened up (`lib/otp-flood.ts`).
 *
 * The load generator shares the machine with everything it measures, so by default it is a plain
 * `node:http` client with a keep-alive agent; `--client fetch` uses undici's fetch, which costs
 * several times more CPU per request on this side. `loadCpuCores` in the result says where the CPU
 * went during the load phase (web, worker, sink, PostgreSQL, Redis, this benchmark, the machine).
 */
import { Agent, request } from 'node:http'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { cpuAvailable, cpuBetween, sampleCpu } from './lib/cpu'
import { runFlood } from './lib/otp-flood'
import { runUnboundedFlood } from './lib/otp-flood-unbounded'
import { startBenchPlatform } from './lib/platform'
import { percentile, round } from './lib/stats'

const { values: args } = parseArgs({
  options: {
    samples: { type: 'string', default: '300' },
    rate: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '10' },
    client: { type: 'string', default: 'http' },
    flood: { type: 'boolean', default: false },
    clients: { type: 'string', default: '12' },
    paced: { type: 'boolean', default: false },
  },
})
if (args.flood && !args.paced) {
  const summary = await runUnboundedFlood({
    seconds: Number(args.seconds === '10' ? '20' : args.seconds),
    clients: Number(args.clients),
    samples: Number(args.samples === '300' ? '30' : args.samples),
  })
  console.log(JSON.stringify(summary))
  process.exit(0)
}
if (args.flood) {
  const summary = await runFlood({
    seconds: Number(args.seconds === '10' ? '20' : args.seconds),
    clients: Number(args.clients),
    idleSamples: Number(args.samples === '300' ? '100' : args.samples),
  })
  console.log(JSON.stringify(summary))
  process.exit(0)
}
if (args.client !== 'http' && args.client !== 'fetch') throw new Error('--client is http or fetch')
const samples = Number(args.samples)
const rate = Number(args.rate)
const seconds = Number(args.seconds)
const progress = (line: string) => console.error(`bench:otp ${line}`)

interface SinkMessage {
  to: string
  receivedAt: string
}

const platform = await startBenchPlatform('otp')
const headers = { authorization: `Bearer ${platform.apiKey}`, 'content-type': 'application/json' }
await fetch(`${platform.inboxUrl}/messages`, { method: 'DELETE' })

/** A request that fails outright (connect timeout, reset) counts as status 0 instead of ending the run. */
function post(body: unknown): Promise<{ status: number; ms: number }> {
  return args.client === 'fetch' ? postWithFetch(body) : postWithHttp(body)
}

async function postWithFetch(body: unknown): Promise<{ status: number; ms: number }> {
  const started = performance.now()
  try {
    const response = await fetch(`${platform.webUrl}/api/v1/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    })
    await response.arrayBuffer()
    return { status: response.status, ms: performance.now() - started }
  } catch {
    return { status: 0, ms: performance.now() - started }
  }
}

const agent = new Agent({ keepAlive: true })
const messagesUrl = new URL('/api/v1/messages', platform.webUrl)

function postWithHttp(body: unknown): Promise<{ status: number; ms: number }> {
  const started = performance.now()
  const payload = Buffer.from(JSON.stringify(body))
  return new Promise((resolve) => {
    const done = (status: number) => resolve({ status, ms: performance.now() - started })
    const req = request(
      messagesUrl,
      { method: 'POST', agent, headers: { ...headers, 'content-length': payload.byteLength } },
      (res) => {
        res.resume()
        res.on('end', () => done(res.statusCode ?? 0))
        res.on('error', () => done(0))
      },
    )
    req.setTimeout(30_000, () => req.destroy(new Error('timed out')))
    req.on('error', () => done(0))
    req.end(payload)
  })
}

/** Polls the sink until `expected` messages (to addresses starting with `prefix`, if given) arrived. */
async function waitForSink(
  expected: number,
  since: number,
  timeoutMs: number,
  prefix = '',
): Promise<SinkMessage[]> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const messages = (
      (await (await fetch(`${platform.inboxUrl}/messages?since=${since}`)).json()) as SinkMessage[]
    ).filter((message) => message.to.startsWith(prefix))
    if (messages.length >= expected || Date.now() > deadline) return messages
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const total = rate * seconds

/**
 * `total` POSTs at an open-loop `rate`, each to `<prefix>-<i>@bench.test`: response times (p50,
 * p99, per second), statuses, the client's own event-loop stalls, and the CPU each process spent.
 */
async function apiLoad(prefix: string) {
  const cpuBefore = sampleCpu(platform.processGroups)
  // The client's own stalls show up as latency too; this says how long its event loop was held up.
  const clientLoopDelay = monitorEventLoopDelay({ resolution: 10 })
  clientLoopDelay.enable()
  const loadStart = performance.now()
  const pending: Promise<{ status: number; ms: number }>[] = []
  for (let i = 0; i < total; i++) {
    const due = loadStart + (i * 1000) / rate
    const wait = due - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    pending.push(
      post({ to: `${prefix}-${i}@bench.test`, subject: `Receipt ${i}`, text: 'Thank you for your order.' }),
    )
  }
  const results = await Promise.all(pending)
  clientLoopDelay.disable()
  const cpu = cpuBetween(cpuBefore, sampleCpu(platform.processGroups))
  const accepted = results.filter((r) => r.status === 202).map((r) => r.ms)
  const statusCounts: Record<string, number> = {}
  for (const r of results) statusCounts[r.status] = (statusCounts[r.status] ?? 0) + 1
  const figures = {
    apiStatuses: statusCounts,
    apiP50Ms: round(percentile(accepted, 50)),
    apiP99Ms: round(percentile(accepted, 99)),
    apiMaxMs: round(Math.max(...results.map((r) => r.ms))),
    clientLoopDelayMaxMs: round(clientLoopDelay.max / 1e6),
    // When the slow answers happened: p99 of the requests sent in each second of the load.
    apiP99MsBySecond: Array.from({ length: seconds }, (_, second) =>
      round(
        percentile(
          results.slice(second * rate, (second + 1) * rate).map((r) => r.ms),
          99,
        ),
      ),
    ),
    // CPU of each process over the load phase (1.0 = one core).
    ...(cpuAvailable()
      ? {
          loadCpuCores: { ...cpu.cores, machine: cpu.machineCores },
          loadSeconds: cpu.seconds,
          // CPU per API request over the load phase (with the worker running, it also delivers them).
          cpuMsPerRequest: Object.fromEntries(
            Object.entries(cpu.cpuMs).map(([name, ms]) => [name, round(ms / total, 2)]),
          ),
        }
      : {}),
  }
  return { results, figures }
}

try {
  // Warm-up: first requests compile routes, open pools and SMTP connections.
  for (let i = 0; i < 20; i++)
    await post({ to: `warm-${i}@bench.test`, template: 'otp', variables: { code: '000000' } })
  await waitForSink(20, 0, 30_000)

  progress(`idle OTP latency: ${samples} requests, one every 100 ms`)
  const idleStart = Date.now()
  const sentAt = new Map<string, number>()
  const acceptStatuses: number[] = []
  for (let i = 0; i < samples; i++) {
    const to = `otp-${i}@bench.test`
    sentAt.set(to, Date.now())
    const result = await post({
      to,
      template: 'otp',
      variables: { code: String(100000 + i), appName: 'Bench' },
    })
    acceptStatuses.push(result.status)
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - result.ms)))
  }
  const delivered = (await waitForSink(samples, idleStart, 60_000)).filter((m) => sentAt.has(m.to))
  const latencies = delivered.map((m) => Date.parse(m.receivedAt) - (sentAt.get(m.to) as number))

  progress(`API response time: ${rate} requests/s for ${seconds} s (open loop), the worker delivering`)
  const withDelivery = await apiLoad('load')

  // The same load with the worker stopped: the API's own response time, as when the workers run on
  // other machines. The accepted mail waits in the outbox and must all arrive once the worker is back.
  progress('API response time again with the worker stopped (API, PostgreSQL and Redis only)')
  await platform.stopProcess('worker')
  const aloneStart = Date.now()
  const alone = await apiLoad('alone')
  progress('worker started again: the mail accepted meanwhile must all arrive')
  await platform.startWorker()
  const aloneAccepted = alone.results.filter((r) => r.status === 202).length
  const deliveredAfter = (await waitForSink(aloneAccepted, aloneStart, 120_000, 'alone-')).length

  const summary = {
    client: args.client,
    otpSamples: samples,
    otpDelivered: latencies.length,
    otpAcceptedStatuses: acceptStatuses.filter((s) => s === 202).length,
    otpP50Ms: round(percentile(latencies, 50)),
    otpP99Ms: round(percentile(latencies, 99)),
    otpMaxMs: round(Math.max(...latencies)),
    apiRequests: total,
    apiRatePerSec: rate,
    ...withDelivery.figures,
    apiAlone: { ...alone.figures, acceptedThenDelivered: deliveredAfter },
  }
  console.log(JSON.stringify(summary))
} finally {
  agent.destroy()
  await platform.stop()
}
