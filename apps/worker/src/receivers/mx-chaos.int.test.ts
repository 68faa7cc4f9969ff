import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDatabase, type DatabaseHandle, messages, receiverStates } from '@fairlane/db'
import { visibleStatus } from '@fairlane/db/queries/message-claims'
import { loadReceiverRules } from '@fairlane/delivery/receivers/rules'
import { createTenant, seedQueuedMessages } from '@fairlane/delivery/testing/seed'
import { duplicateMessageIds, startTestSink } from '@fairlane/delivery/testing/sink'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, type RunningProcess, setupTestEnvironment } from '@fairlane/testing'
import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWorkerProcess } from '../test-support/worker-process'

/**
 * The worker as a process in MX mode, killed with SIGKILL while "google" throttles it: the throttle
 * it learnt is in PostgreSQL, its deferred mail in the lanes; a new worker delivers every message,
 * none failed for the 4xx, and no Message-ID arrives twice beyond the sends in flight at the kill.
 */
const env = setupTestEnvironment('mx-chaos')
const COUNT = 150
let database: DatabaseHandle
let sink: MailSink
let rulesDir: string
let rulesPath: string
const running: RunningProcess[] = []

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 5 })
  sink = await startTestSink({ receivers: true })
  // The default rules with a fast back-off, so the test does not wait out a minute's pause.
  const rules = loadReceiverRules()
  rulesDir = mkdtempSync(join(tmpdir(), 'fairlane-rules-'))
  rulesPath = join(rulesDir, 'receivers.json')
  writeFileSync(
    rulesPath,
    JSON.stringify({
      ...rules,
      providers: rules.providers.map((provider) =>
        provider.name === 'google'
          ? { ...provider, limits: { ...provider.limits, perMinute: 3_000 } }
          : provider,
      ),
      backoff: { ...rules.backoff, pauseMs: 1_500, increasePerMinute: 1_200 },
    }),
  )
})
afterAll(async () => {
  for (const worker of running) if (worker.child.exitCode === null) worker.child.kill('SIGKILL')
  await sink?.close()
  await database?.close()
  if (rulesDir) rmSync(rulesDir, { recursive: true, force: true })
})

function startWorker(): Promise<RunningProcess> {
  return startWorkerProcess(
    {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      QUEUE_PREFIX: env.queuePrefix,
      MAIL_DOMAIN: 'fairlane.test',
      SHUTDOWN_FORCE_EXIT_MS: '15000',
      DELIVERY_MODE: 'mx',
      DNS_SERVERS: sink.dns?.address ?? '',
      MX_PORT: String(sink.receiverPort),
      MX_ALLOW_PRIVATE: 'true',
      SMTP_HELO_NAME: 'mx-chaos.fairlane.test',
      EGRESS_ADDRESSES: '127.0.0.2',
      RECEIVER_RULES: rulesPath,
      // Quick recovery, as the relay-mode chaos test: jobs back within ~3 s, claims expire after 9 s.
      JOB_LOCK_MS: '2000',
      STALLED_INTERVAL_MS: '1000',
      SEND_LOCK_MS: '9000',
      SMTP_TIMEOUT_MS: '3000',
      DEFAULT_SMTP_CONNECTIONS: '4',
    },
    { running },
  )
}

async function countByStatus(tenantId: string): Promise<Record<string, number>> {
  const rows = await database.db
    // As readers see it: `sending` while an attempt holds a claim.
    .select({ status: visibleStatus(), n: sql<number>`count(*)::int` })
    .from(messages)
    .where(eq(messages.tenantId, tenantId))
    .groupBy(sql`1`)
  return Object.fromEntries(rows.map((row) => [row.status, row.n]))
}

describe('MX mode, worker process', () => {
  it('SIGKILL while google throttles: every message delivered once the throttle lifts, none failed, no repeats beyond those in flight', async () => {
    const tenantId = await createTenant(database.db)
    sink.faults.add({ receiver: 'google', throttle: { perMinute: 40, per: 'source' } })
    const seeded = await seedQueuedMessages(database.db, {
      tenantId,
      lane: 'default',
      count: COUNT,
      to: (index) => `chaos${index}@gmail.test`,
    })
    const first = await startWorker()
    // The throttled period: google answered 421 and the worker paused it (in PostgreSQL).
    await eventually(
      async () =>
        (
          await database.db
            .select()
            .from(receiverStates)
            .where(and(eq(receiverStates.provider, 'google'), eq(receiverStates.egress, '127.0.0.2')))
        ).length === 1,
      { what: 'google throttling the worker', timeoutMs: 30_000, intervalMs: 50 },
    )
    const inFlight = (await countByStatus(tenantId)).sending ?? 0
    first.child.kill('SIGKILL')
    expect((await first.exited).signal).toBe('SIGKILL')
    const deliveredAtKill = sink.store.list({ receiver: 'google' }).length
    expect(deliveredAtKill).toBeLessThan(COUNT)

    sink.faults.clear()
    const second = await startWorker()
    await eventually(async () => (await countByStatus(tenantId)).sent === COUNT, {
      what: `all ${COUNT} rows sent`,
      timeoutMs: 60_000,
      intervalMs: 250,
    })
    const statuses = await countByStatus(tenantId)
    expect(statuses.failed ?? 0).toBe(0)
    const received = sink.store.list({ receiver: 'google' })
    const expectedIds = new Set(seeded.map((message) => `<${message.id}@fairlane.test>`))
    expect(new Set(received.map((message) => message.messageId))).toEqual(expectedIds)
    // A send cut off by the kill after the body went out may arrive again (same Message-ID): at most
    // the sends in flight then; here usually none.
    expect(duplicateMessageIds(sink).length).toBeLessThanOrEqual(Math.max(inFlight, 4))
    second.child.kill('SIGTERM')
    expect((await second.exited).code, second.output()).toBe(0)
  }, 120_000)
})
