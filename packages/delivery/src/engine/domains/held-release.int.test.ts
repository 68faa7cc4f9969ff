import { addDomain, verifyDomain } from '@fairlane/core'
import { messages } from '@fairlane/db'
import { createDomainStore } from '@fairlane/db/queries/sending-domains'
import { createDnsLookup } from '@fairlane/mail/dns'
import type { MailSink } from '@fairlane/mailsink/sink'
import {
  eventually,
  publishDomainRecords,
  setupTestEnvironment,
  startTestDnsServer,
  type TestDnsServer,
} from '@fairlane/testing'
import { inArray } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestPipeline, TEST_DKIM_ENCRYPTION_KEYS, type TestPipeline } from '../../testing/pipeline'
import { createTenant } from '../../testing/seed'
import { startTestSink } from '../../testing/sink'

/**
 * Held mail goes back on the normal send path when its domain verifies: the release (in the status
 * change's transaction) writes the outbox row, the relay publishes it, a lane worker sends it.
 */
const env = setupTestEnvironment('domain-held-release')
let sink: MailSink
let dns: TestDnsServer
let pipeline: TestPipeline

beforeAll(async () => {
  sink = await startTestSink()
  dns = await startTestDnsServer()
  pipeline = await startTestPipeline(env, sink, {
    domains: { returnPathHost: 'bounces.fairlane.test', dnsServers: [dns.address] },
  })
})
afterAll(async () => {
  await pipeline?.stop()
  await sink?.close()
  await dns?.close()
})

it('sends the held messages of a domain once it verifies, and nothing before', async () => {
  const { db } = pipeline.database
  const tenantId = await createTenant(db)
  const deps = {
    store: createDomainStore(db),
    dns: createDnsLookup({ servers: [dns.address] }),
    clock: { now: () => new Date() },
    settings: { returnPathHost: 'bounces.fairlane.test' },
    // The worker's keys: it decrypts the domain's key to sign the released mail.
    encryptionKeys: TEST_DKIM_ENCRYPTION_KEYS,
    maxDomains: 50,
  }
  const domain = await addDomain({ tenantId, name: 'held.example.com' }, deps)
  const held = await db
    .insert(messages)
    .values(
      (['critical', 'default'] as const).map((lane) => ({
        tenantId,
        lane,
        status: 'held' as const,
        toAddress: `${lane}@example.net`,
        sendingDomainId: domain.id,
        subject: `Held on ${lane}`,
        text: 'waited for its domain',
      })),
    )
    .returning({ id: messages.id })

  expect((await verifyDomain({ tenantId, domainId: domain.id }, deps)).status).toBe('pending')
  publishDomainRecords(dns, domain)
  const released: number[] = []
  const verified = await verifyDomain(
    { tenantId, domainId: domain.id },
    { ...deps, onHeldReleased: ({ messages: count }) => released.push(count) },
  )
  expect(verified.status).toBe('verified')
  expect(released).toEqual([2])

  await eventually(
    () => sink.store.list().filter((message) => message.subject?.startsWith('Held on ')).length === 2,
    { timeoutMs: 20_000, what: 'both released messages at the sink' },
  )
  // The sink has the mail a moment before the worker records the send: wait for both.
  await eventually(
    async () => {
      const rows = await db
        .select({ status: messages.status })
        .from(messages)
        .where(
          inArray(
            messages.id,
            held.map((row) => row.id),
          ),
        )
      return rows.length === 2 && rows.every((row) => row.status === 'sent')
    },
    { timeoutMs: 20_000, what: 'both released messages recorded as sent' },
  )
})
