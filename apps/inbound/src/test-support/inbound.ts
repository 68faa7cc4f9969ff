import { Writable } from 'node:stream'
import type { InboundKind } from '@fairlane/core'
import {
  createDatabase,
  type Database,
  type DatabaseHandle,
  messageEvents,
  messages,
  suppressions,
} from '@fairlane/db'
import { visibleStatus } from '@fairlane/db/queries/message-claims'
import { setupTestEnvironment } from '@fairlane/testing'
import { and, asc, eq } from 'drizzle-orm'
import pino from 'pino'
import { afterAll, beforeAll } from 'vitest'
import type { InboundLimits } from '../smtp-server'
import { type Inbound, startInbound } from '../start-inbound'
import { TEST_BOUNCE_DOMAIN, TEST_SECRETS } from './seed'

export interface InboundHarness {
  db: Database
  inbound: Inbound
  /** The server's log lines, parsed. */
  logs: Array<Record<string, unknown>>
}

/**
 * An integration test file's inbound server: its own migrated database, the server started in this
 * process on free ports (as `main.ts` starts it), stopped afterwards. Read the fields inside tests.
 */
export function setupInbound(options: { limits?: Partial<InboundLimits>; softBounceLimit?: number } = {}) {
  const environment = setupTestEnvironment('inbound')
  const harness = { logs: [] } as unknown as InboundHarness
  let handle: DatabaseHandle | undefined
  beforeAll(async () => {
    handle = createDatabase(environment.databaseUrl, { max: 5, applicationName: 'inbound-test' })
    harness.db = handle.db
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line) harness.logs.push(JSON.parse(line))
        done()
      },
    })
    harness.inbound = await startInbound({
      db: handle.db,
      logger: pino({ level: 'info' }, sink),
      host: '127.0.0.1',
      smtpPort: 0,
      httpPort: 0,
      secrets: TEST_SECRETS,
      bounceDomain: TEST_BOUNCE_DOMAIN,
      softBounceLimit: options.softBounceLimit ?? 3,
      settleIntervalMs: 100,
      ...(options.limits ? { limits: options.limits } : {}),
    })
  })
  afterAll(async () => {
    await harness.inbound?.close()
    await handle?.close()
  })
  return harness
}

/** `fairlane_inbound_messages_total{kind}` right now. */
export async function counted(inbound: Inbound, kind: InboundKind): Promise<number> {
  const metric = await inbound.metrics.registry.getSingleMetric('fairlane_inbound_messages_total')?.get()
  return metric?.values.find((value) => value.labels.kind === kind)?.value ?? 0
}

export async function eventsOf(db: Database, messageId: string) {
  return db
    .select({ type: messageEvents.type, detail: messageEvents.detail, tenantId: messageEvents.tenantId })
    .from(messageEvents)
    .where(eq(messageEvents.messageId, messageId))
    .orderBy(asc(messageEvents.id))
}

export async function statusOf(db: Database, messageId: string) {
  // As readers see it: `sending` while an attempt holds a claim on it.
  const [row] = await db.select({ status: visibleStatus() }).from(messages).where(eq(messages.id, messageId))
  return row?.status
}

export async function suppressionOf(db: Database, tenantId: string, email: string) {
  const [row] = await db
    .select({
      reason: suppressions.reason,
      scope: suppressions.scope,
      detail: suppressions.detail,
      messageId: suppressions.messageId,
    })
    .from(suppressions)
    .where(and(eq(suppressions.tenantId, tenantId), eq(suppressions.email, email.toLowerCase())))
  return row
}
