import { messageEvents, receiverStates } from '@fairlane/db'
import { loadReceiverRules } from '@fairlane/delivery/receivers/rules'
import type { MailSink } from '@fairlane/mailsink/sink'
import { eventually, setupTestEnvironment } from '@fairlane/testing'
import { and, eq, inArray, sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { publishDkim, type SeededDomain, seedVerifiedDomain } from '../../testing/domains'
import { startTestPipeline, TEST_DKIM_ENCRYPTION_KEYS, type TestPipeline } from '../../testing/pipeline'
import { createTenant, seedCampaign, seedQueuedMessages } from '../../testing/seed'
import { startTestSink } from '../../testing/sink'

/**
 * MX mode end to end: mail leaves for each recipient domain's own MX hosts (the sink's receivers
 * "google", "microsoft" and "others", found through the sink's DNS server), from egress address
 * 127.0.0.2, DKIM-signed with its VERP envelope; and a provider's throttling slows the right senders.
 */
const env = setupTestEnvironment('mx-delivery')
let sink: MailSink
let pipeline: TestPipeline
const tenants: { id: string; domain: SeededDomain }[] = []

beforeAll(async () => {
  sink = await startTestSink({ receivers: true })
  const dns = sink.dns
  if (!dns || sink.receiverPort === undefined) throw new Error('the test sink has no receivers')
  pipeline = await startTestPipeline(env, sink, {
    receivers: {
      rules: loadReceiverRules(),
      dnsServers: [dns.address],
      port: sink.receiverPort,
      heloName: 'mx-test.fairlane.test',
      tls: 'opportunistic',
      allowPrivate: true,
      egressAddresses: ['127.0.0.2'],
      maxAgeMs: 72 * 3_600_000,
      timeoutMs: 2_000,
    },
  })
  for (const name of ['alpha', 'beta', 'gamma']) {
    const id = await createTenant(pipeline.database.db, `${name} shop`)
    const domain = await seedVerifiedDomain(pipeline.database.db, {
      tenantId: id,
      name: `${name}-news.test`,
      keys: TEST_DKIM_ENCRYPTION_KEYS,
    })
    publishDkim(dns, domain)
    tenants.push({ id, domain })
  }
})
afterAll(async () => {
  await pipeline?.stop()
  await sink?.close()
})
beforeEach(() => {
  sink.faults.clear()
})

/** `count` default-lane messages of a tenant, signed with its domain, to `<prefix><n>@<domain>`. */
function send(tenant: (typeof tenants)[number], to: (index: number) => string, count: number) {
  return seedQueuedMessages(pipeline.database.db, {
    tenantId: tenant.id,
    lane: 'default',
    count,
    to,
    sender: { from: `news@${tenant.domain.name}`, sendingDomainId: tenant.domain.id },
  })
}

const arrived = (address: string) => sink.store.list({ to: address })

/** The mail to `to` as the sink's HTTP API shows it: once its DKIM, SPF and DMARC checks are done. */
async function checked(to: string) {
  return eventually(
    async () => {
      const response = await fetch(`http://127.0.0.1:${sink.httpPort}/messages?to=${encodeURIComponent(to)}`)
      const found = (await response.json()) as ReturnType<MailSink['store']['list']>
      return found.length === 1 ? found[0] : undefined
    },
    { timeoutMs: 15_000, what: `the mail to ${to} at its receiver` },
  )
}

async function deferralsOf(messageIds: string[]) {
  return pipeline.database.db
    .select({ messageId: messageEvents.messageId, detail: messageEvents.detail })
    .from(messageEvents)
    .where(and(inArray(messageEvents.messageId, messageIds), eq(messageEvents.type, 'deferred')))
}

describe('MX mode', () => {
  it('delivers each message to its domain’s own receiver, signed, with its VERP envelope, from the egress address', async () => {
    const [alpha] = tenants
    if (!alpha) throw new Error('no tenant')
    const domains = ['gmail.test', 'outlook.test', 'others.test']
    await send(alpha, (index) => `spread${index}@${domains[index % 3]}`, 6)
    const expected: Record<string, string> = {
      'gmail.test': 'google',
      'outlook.test': 'microsoft',
      'others.test': 'others',
    }
    for (let index = 0; index < 6; index++) {
      const domain = domains[index % 3] ?? ''
      const mail = await checked(`spread${index}@${domain}`)
      expect(mail?.receiver?.name).toBe(expected[domain])
      expect(mail?.sourceAddress).toBe('127.0.0.2')
      expect(mail?.auth).toMatchObject({ dkim: 'pass', dkimDomain: alpha.domain.name })
      expect(mail?.envelope.from.endsWith(`@${alpha.domain.returnPathHost}`)).toBe(true)
    }
  })

  it('delivers a campaign spread over the three receivers, each recipient at its own', async () => {
    const [alpha] = tenants
    if (!alpha) throw new Error('no tenant')
    const { campaignId } = await seedCampaign(pipeline.database.db, {
      tenantId: alpha.id,
      contacts: 3,
      domain: 'gmail.test',
      prefix: 'reader-g',
      sendAt: new Date(Date.now() + 86_400_000),
    })
    // Two more recipients on the other receivers' domains, in the same list.
    await pipeline.database.db.execute(sql`
      with created as (
        insert into contacts (tenant_id, email, name)
        values (${alpha.id}, 'reader-m@outlook.test', 'M'), (${alpha.id}, 'reader-o@others.test', 'O')
        returning id
      )
      insert into list_members (tenant_id, list_id, contact_id)
      select ${alpha.id}, c.list_id, created.id from created, campaigns c where c.id = ${campaignId}`)
    await pipeline.database.db.execute(sql`
      update campaigns set from_address = ${`"Alpha News" <news@${alpha.domain.name}>`}, send_at = now()
      where id = ${campaignId}`)
    const expected: [string, string][] = [
      ['reader-g1@gmail.test', 'google'],
      ['reader-g2@gmail.test', 'google'],
      ['reader-g3@gmail.test', 'google'],
      ['reader-m@outlook.test', 'microsoft'],
      ['reader-o@others.test', 'others'],
    ]
    for (const [to, receiver] of expected) {
      const mail = await checked(to)
      expect(mail?.receiver?.name).toBe(receiver)
      expect(mail?.auth).toMatchObject({ dkim: 'pass', dkimDomain: alpha.domain.name })
      expect(mail?.envelope.from.endsWith(`@${alpha.domain.returnPathHost}`)).toBe(true)
      expect(mail?.headers['list-unsubscribe']).toBeTruthy()
    }
  })

  it('a provider that throttles one tenant’s DKIM domain slows that tenant there alone', async () => {
    const [, beta, gamma] = tenants
    if (!beta || !gamma) throw new Error('no tenants')
    sink.faults.add({ receiver: 'google', throttle: { perMinute: 3, per: 'dkimDomain' } })
    const betaGoogle = await send(beta, (index) => `beta${index}@gmail.test`, 8)
    // Gamma is another tenant at the same provider, within what google takes of its domain (3 a
    // minute): all of it goes out, not held behind beta's throttled mail.
    await send(gamma, (index) => `gamma${index}@gmail.test`, 3)
    await eventually(() => [0, 1, 2].every((index) => arrived(`gamma${index}@gmail.test`).length === 1), {
      what: 'gamma’s mail at google',
      timeoutMs: 15_000,
    })
    // Beta: 3 accepted, then a throttle naming beta's domain; beta is paused at google.
    const [state] = await eventually(
      async () => {
        const rows = await pipeline.database.db
          .select()
          .from(receiverStates)
          .where(and(eq(receiverStates.provider, 'google'), eq(receiverStates.scope, beta.id)))
        return rows.length === 1 && rows
      },
      { what: 'beta’s own state at google', timeoutMs: 15_000 },
    )
    expect(state?.egress).toBe('127.0.0.2')
    expect(state?.lastReply).toContain(`[${beta.domain.name}]`)
    // The deferral of the attempt google refused carries its reply; those the pause held back before
    // any attempt name the pause. Every one of them names google.
    const deferred = await eventually(
      async () => {
        const rows = await deferralsOf(betaGoogle.map((message) => message.id))
        const replied = rows.find((row) =>
          /^421 4\.7\.28 /.test(String((row.detail as { reply?: unknown })?.reply)),
        )
        return replied !== undefined && rows
      },
      { what: 'a deferred event of beta’s with google’s reply', timeoutMs: 10_000 },
    )
    for (const row of deferred) expect(row.detail).toMatchObject({ provider: 'google' })
    // No throttle of everyone at google: beta's throttle was beta's.
    const everyone = await pipeline.database.db
      .select()
      .from(receiverStates)
      .where(and(eq(receiverStates.provider, 'google'), eq(receiverStates.scope, '')))
    expect(everyone).toEqual([])
    // Beta's mail for another provider is not slowed by google's throttle.
    await send(beta, (index) => `beta-other${index}@outlook.test`, 3)
    await eventually(
      () => [0, 1, 2].every((index) => arrived(`beta-other${index}@outlook.test`).length === 1),
      {
        what: 'beta’s mail at microsoft',
        timeoutMs: 15_000,
      },
    )
    // Beta's deferred google mail is still waiting, none of it failed.
    expect(
      betaGoogle.filter((_, index) => arrived(`beta${index}@gmail.test`).length === 1).length,
    ).toBeLessThanOrEqual(4)
  })

  it('a provider that throttles the egress address is paused for everyone within one reply, other providers not', async () => {
    const [alpha] = tenants
    if (!alpha) throw new Error('no tenant')
    const google = sink.receivers.find((receiver) => receiver.name === 'google')
    if (!google) throw new Error('no google receiver')
    google.gate.resetCounts()
    sink.faults.add({ receiver: 'google', throttle: { perMinute: 4, per: 'source' } })
    const toGoogle = await send(alpha, (index) => `ip${index}@gmail.test`, 12)
    await send(alpha, (index) => `ip-other${index}@outlook.test`, 3)
    const [state] = await eventually(
      async () => {
        const rows = await pipeline.database.db
          .select()
          .from(receiverStates)
          .where(and(eq(receiverStates.provider, 'google'), eq(receiverStates.scope, '')))
        return rows.length === 1 && rows
      },
      { what: 'google paused for every tenant', timeoutMs: 15_000 },
    )
    expect(state?.lastReply).toMatch(/^421 4\.7\.28 \[127\.0\.0\.2\]/)
    expect(state?.pausedUntil?.getTime() ?? 0).toBeGreaterThan(Date.now())
    await eventually(
      () => [0, 1, 2].every((index) => arrived(`ip-other${index}@outlook.test`).length === 1),
      {
        what: 'the mail for microsoft, not held up',
        timeoutMs: 15_000,
      },
    )
    // Every message is accepted by google or waits for it: none failed for a 4xx.
    await eventually(
      async () => (await deferralsOf(toGoogle.map((message) => message.id))).length >= 12 - 4,
      {
        what: 'the rest of the google mail deferred',
        timeoutMs: 15_000,
      },
    )
    const status = google.gate.status()
    expect(status.accepted).toBe(4)
    // Only the replies already in flight when the first throttle came back: then the pause holds.
    expect(status.throttled).toBeLessThanOrEqual(4)
  })
})
