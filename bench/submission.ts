/**
 * SMTP submission beside the API, through the real processes (`pnpm start`'s, on ports of its own):
 *  - throughput: tenant S submits `--messages` over 16 SMTP connections (implicit TLS, AUTH with an API
 *    key) while tenant P posts as many to `POST /api/v1/messages` with 16 clients, in the same run
 *    (`smtpPerSec`, `apiPerSec`); `dataTo250P99Ms`: the end of DATA to the `250`, p99, over S's sends;
 *  - the plan: tenant F floods over 16 connections past its own plan (20/s, burst 20, set on its tenant
 *    row; ACCEPT_HORIZON_MS 5 s: 120 fit), each `451 4.7.1 … retry in N s` is waited out and the
 *    message retried (`overPlan451`), and every message of F's must end up written once (`lost`);
 *  - meanwhile tenant Q sends one message at a time; its DATA → 250 p99 without and with the flood
 *    is printed on stderr (the flood must not move it by more than 1.5×).
 * Progress on stderr; the last line on stdout is one JSON object:
 *   { "smtpPerSec", "apiPerSec", "dataTo250P99Ms", "overPlan451", "lost" }
 *
 *   pnpm bench:submission [--messages 1000] [--flood 1200]
 */
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { apiKeyPrefix, generateApiKey, hashApiKey } from '@fairlane/core'
import { ensureSelfSignedCert } from '@fairlane/stack'
import postgres from 'postgres'
import { ROOT, startBenchPlatform } from './lib/platform'
import { openSubmitConnection, type SubmitConnection } from './lib/smtp-submit'
import { percentile, round } from './lib/stats'

const { values: args } = parseArgs({
  options: { messages: { type: 'string', default: '1000' }, flood: { type: 'string', default: '1200' } },
})
const total = Number(args.messages)
const floodTotal = Number(args.flood)
const CONNECTIONS = 16
/** Tenant F's own transactional plan (mails/s, and its burst): the others have the platform's 100/s. */
const FLOOD_PLAN_PER_SEC = 20
const progress = (line: string) => console.error(`bench:submission ${line}`)

const tls = ensureSelfSignedCert(join(ROOT, '.data', 'submission-tls'))
const platform = await startBenchPlatform('submission', {
  SUBMISSION_TLS_CERT: tls.certPath,
  SUBMISSION_TLS_KEY: tls.keyPath,
  TRANSACTIONAL_RATE_PER_SEC: '100',
  TRANSACTIONAL_BURST: '100',
  ACCEPT_HORIZON_MS: '5000',
  // The API's request limit per tenant: 20 × 100/s, so the API side measures accepting, not its limiter.
  API_TENANT_RATE_FACTOR: '20',
  SUBMISSION_TLS_PORT: '3185',
})
const sql = postgres(platform.databaseUrl, { max: 4, onnotice: () => {} })
const tlsPort = 3185

async function tenantWithKey(name: string): Promise<{ id: string; key: string }> {
  const [tenant] = await sql<{ id: string }[]>`insert into tenants (name) values (${name}) returning id`
  if (!tenant) throw new Error('no tenant row')
  const key = generateApiKey()
  await sql`insert into api_keys (tenant_id, name, prefix, key_hash, scope)
    values (${tenant.id}, 'bench', ${apiKeyPrefix(key)}, ${hashApiKey(key)}, 'sending')`
  return { id: tenant.id, key }
}

function raw(to: string, subject: string): string {
  return `From: bench@example.com\r\nTo: ${to}\r\nSubject: ${subject}\r\nMessage-ID: <${randomUUID()}@bench>\r\n\r\n${'Hello from the submission bench.\r\n'.repeat(20)}`
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Sends `count` messages over `connections` connections, each retried after a 451 as told. */
async function submitAll(key: string, count: number, connections: number, label: string) {
  const times: number[] = []
  let next = 0
  let accepted = 0
  let refused451 = 0
  const other: string[] = []
  const worker = async (connection: SubmitConnection) => {
    for (let index = next++; index < count; index = next++) {
      const to = `${label}-${index}@customer.example`
      for (;;) {
        const reply = await connection.send({
          from: 'bench@example.com',
          to,
          raw: raw(to, `${label} ${index}`),
        })
        if (reply.code === 250) {
          times.push(reply.dataToReplyMs)
          accepted++
          break
        }
        if (reply.code === 451) {
          refused451++
          const seconds = Number(/retry in (\d+) s/.exec(reply.text)?.[1] ?? 1)
          await wait(seconds * 1000)
          continue
        }
        other.push(`${reply.code} ${reply.text}`)
        break
      }
    }
    connection.close()
  }
  const opened = await Promise.all(
    Array.from({ length: connections }, () => openSubmitConnection(tlsPort, key)),
  )
  const startedAt = performance.now()
  await Promise.all(opened.map(worker))
  return { seconds: (performance.now() - startedAt) / 1000, times, accepted, refused451, other }
}

async function postAll(key: string, count: number, clients: number) {
  let next = 0
  let accepted = 0
  const startedAt = performance.now()
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let index = next++; index < count; index = next++) {
        for (;;) {
          const response = await fetch(`${platform.webUrl}/api/v1/messages`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              to: `api-${index}@customer.example`,
              subject: `api ${index}`,
              text: 'Hello',
            }),
          })
          await response.arrayBuffer()
          if (response.status === 202) {
            accepted++
            break
          }
          if (response.status !== 429) throw new Error(`POST /api/v1/messages answered ${response.status}`)
          await wait(Number(response.headers.get('retry-after') ?? 1) * 1000)
        }
      }
    }),
  )
  return { seconds: (performance.now() - startedAt) / 1000, accepted }
}

async function quietP99(key: string, count: number, label: string): Promise<number> {
  const run = await submitAll(key, count, 1, label)
  return percentile(run.times, 99)
}

try {
  const smtpTenant = await tenantWithKey('Bench SMTP')
  const apiTenant = await tenantWithKey('Bench API')
  const flooder = await tenantWithKey('Bench flood')
  // F's own transactional plan, below what 16 connections submit on any machine: the flood meets 451s.
  await sql`update tenants set tx_rate_per_sec = ${FLOOD_PLAN_PER_SEC}, tx_burst = ${FLOOD_PLAN_PER_SEC}
    where id = ${flooder.id}`
  const quiet = await tenantWithKey('Bench quiet')

  progress(`throughput: ${total} over SMTP (${CONNECTIONS} connections) and ${total} over the API, at once`)
  const [smtp, api] = await Promise.all([
    submitAll(smtpTenant.key, total, CONNECTIONS, 'smtp'),
    postAll(apiTenant.key, total, CONNECTIONS),
  ])
  if (smtp.other.length > 0) progress(`smtp refusals: ${smtp.other.slice(0, 3).join(' | ')}`)

  progress('quiet tenant alone')
  const quietAlone = await quietP99(quiet.key, 100, 'quiet-a')
  progress(`flood: ${floodTotal} over ${CONNECTIONS} connections past the plan, quiet tenant beside it`)
  const [flood, quietFlooded] = await Promise.all([
    submitAll(flooder.key, floodTotal, CONNECTIONS, 'flood'),
    wait(500).then(() => quietP99(quiet.key, 100, 'quiet-b')),
  ])
  const [written] = await sql<{ count: string }[]>`
    select count(distinct to_address) as count from messages where tenant_id = ${flooder.id} and source = 'smtp'`
  const lost = floodTotal - Number(written?.count ?? 0)
  progress(
    `quiet tenant DATA → 250 p99: alone ${round(quietAlone)} ms, beside the flood ${round(quietFlooded)} ms (${round(quietFlooded / quietAlone, 2)}×)`,
  )
  progress(
    `flood: ${flood.accepted} accepted, ${flood.refused451} answered 451 and retried, ${flood.other.length} other refusals`,
  )
  console.log(
    JSON.stringify({
      smtpPerSec: round(smtp.accepted / smtp.seconds),
      apiPerSec: round(api.accepted / api.seconds),
      dataTo250P99Ms: round(percentile(smtp.times, 99)),
      overPlan451: flood.refused451,
      lost,
    }),
  )
} finally {
  await sql.end({ timeout: 5 })
  await platform.stop()
}
