import { connect } from 'node:net'
import { Readable } from 'node:stream'
import { buildReturnPath, parseReturnPath } from '@fairlane/core'
import { eventually } from '@fairlane/testing'
import pino from 'pino'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Inbound, startInbound } from './start-inbound'
import { counted, eventsOf, setupInbound, statusOf, suppressionOf } from './test-support/inbound'
import { dsn, outOfOffice } from './test-support/reports'
import {
  address,
  createDomain,
  createMessage,
  createTenant,
  returnPathOf,
  TEST_BOUNCE_DOMAIN,
  TEST_SECRETS,
} from './test-support/seed'
import { sendReport } from './test-support/smtp-client'

/** The SMTP side: who may send what, how much, for how long; and the tenant boundary. */
const harness = setupInbound({ limits: { socketTimeoutMs: 1_000 } })
let acme: string
let globex: string

beforeAll(async () => {
  acme = await createTenant(harness.db, 'Acme')
  globex = await createTenant(harness.db, 'Globex')
  await createDomain(harness.db, acme, 'acme.example')
  await createDomain(harness.db, globex, 'globex.example')
})

describe('recipients', () => {
  it('refuses an address whose MAC does not verify with 550 5.1.1, and counts it forged', async () => {
    const id = await createMessage(harness.db, { tenantId: acme, to: address('x') })
    const genuine = returnPathOf(id)
    const forged = `${genuine.slice(0, 30)}${genuine[30] === 'a' ? 'b' : 'a'}${genuine.slice(31)}`
    const otherSecret = buildReturnPath({ messageId: id, host: TEST_BOUNCE_DOMAIN, secret: 'x'.repeat(40) })
    const before = await counted(harness.inbound, 'forged')
    for (const to of [forged, otherSecret, 'postmaster@bounces.fairlane.test', 'anyone@example.com']) {
      const result = await sendReport(harness.inbound.smtpPort, to, dsn({ to, recipient: 'x@example.net' }))
      expect(result, to).toMatchObject({ ok: false, code: 550 })
      expect(result.ok === false && result.message).toMatch(/5\.1\.1/)
    }
    expect(await counted(harness.inbound, 'forged')).toBe(before + 4)
    expect(await eventsOf(harness.db, id)).toEqual([])
  })

  it('refuses more than 10 recipients in one message', async () => {
    const verps = await Promise.all(
      Array.from({ length: 11 }, async () =>
        returnPathOf(await createMessage(harness.db, { tenantId: acme, to: address('many') })),
      ),
    )
    const before = await refusals('too-many-recipients')
    const result = await sendReport(
      harness.inbound.smtpPort,
      verps,
      dsn({ to: verps[0] ?? '', recipient: 'x@example.net' }),
    )
    // nodemailer goes on with the 10 accepted recipients: the report is applied to each of those.
    expect(result.ok).toBe(true)
    expect(await refusals('too-many-recipients')).toBe(before + 1)
    const ids = verps.map((verp) => parseReturnPath(verp, { secrets: TEST_SECRETS })?.messageId ?? '')
    const statuses = await Promise.all(ids.map((id) => statusOf(harness.db, id)))
    expect(statuses.filter((status) => status === 'bounced')).toHaveLength(10)
    expect(statuses[10]).toBe('sent')
  })
})

describe('the tenant boundary', () => {
  it("applies a bounce that came to the message's own tenant domain", async () => {
    const to = address('acme')
    const id = await createMessage(harness.db, { tenantId: acme, to, from: 'Acme <news@acme.example>' })
    const verp = returnPathOf(id, 'fl-bounces.acme.example')
    await sendReport(harness.inbound.smtpPort, verp, dsn({ to: verp, recipient: to }))
    expect(await statusOf(harness.db, id)).toBe('bounced')
  })

  it("ignores and counts a genuine return path of another tenant's domain naming this message", async () => {
    const to = address('crossed')
    const id = await createMessage(harness.db, { tenantId: acme, to, from: 'Acme <news@acme.example>' })
    const verp = returnPathOf(id, 'fl-bounces.globex.example')
    const before = await counted(harness.inbound, 'forged')
    const result = await sendReport(harness.inbound.smtpPort, verp, dsn({ to: verp, recipient: to }))
    expect(result.ok).toBe(true)
    expect(await counted(harness.inbound, 'forged')).toBe(before + 1)
    expect(await statusOf(harness.db, id)).toBe('sent')
    expect(await eventsOf(harness.db, id)).toEqual([])
    expect(await suppressionOf(harness.db, acme, to)).toBeUndefined()
    expect(await suppressionOf(harness.db, globex, to)).toBeUndefined()
  })

  it("accepts a deleted domain's return path only for mail that was sent from that domain", async () => {
    const to = address('deleted-domain')
    const own = await createMessage(harness.db, { tenantId: acme, to, from: 'Acme <news@gone.example>' })
    const other = await createMessage(harness.db, {
      tenantId: acme,
      to: address('other'),
      from: 'Acme <news@acme.example>',
    })
    for (const id of [own, other]) {
      const verp = returnPathOf(id, 'fl-bounces.gone.example')
      await sendReport(harness.inbound.smtpPort, verp, dsn({ to: verp, recipient: to }))
    }
    expect(await statusOf(harness.db, own)).toBe('bounced')
    expect(await statusOf(harness.db, other)).toBe('sent')
  })
})

describe('limits', () => {
  it('refuses a 30 MB message with 552 at the end of DATA (nothing kept past 10 MB), and goes on serving', async () => {
    const id = await createMessage(harness.db, { tenantId: acme, to: address('huge') })
    const verp = returnPathOf(id)
    const before = await refusals('too-large')
    const result = await sendReport(harness.inbound.smtpPort, verp, hugeMessage(verp, 30 * 1024 * 1024))
    expect(result).toMatchObject({ ok: false, code: 552 })
    expect(result.ok === false && result.message).toMatch(
      /5\.3\.4 message exceeds the limit of 10485760 bytes/,
    )
    expect(await refusals('too-large')).toBe(before + 1)
    const after = await sendReport(
      harness.inbound.smtpPort,
      verp,
      dsn({ to: verp, recipient: 'x@example.net' }),
    )
    expect(after.ok).toBe(true)
    expect(await statusOf(harness.db, id)).toBe('bounced')
  })

  it('disconnects a client that goes quiet', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(harness.inbound.smtpPort, '127.0.0.1')
      let received = ''
      socket.on('data', (chunk) => {
        received += chunk
      })
      socket.on('close', () => resolve(received))
      socket.on('error', reject)
    })
    expect(answer).toMatch(/^220 /)
    expect(answer).toMatch(/421 .*[Tt]imeout/)
  })
})

describe('slow and greedy clients', () => {
  let strict: Inbound
  beforeAll(async () => {
    strict = await startInbound({
      db: harness.db,
      logger: pino({ level: 'silent' }),
      host: '127.0.0.1',
      smtpPort: 0,
      httpPort: 0,
      secrets: TEST_SECRETS,
      bounceDomain: TEST_BOUNCE_DOMAIN,
      softBounceLimit: 3,
      limits: { dataTimeoutMs: 500, maxClients: 2 },
    })
    return () => strict.close()
  })

  it('disconnects a client whose DATA trickles in for longer than the DATA limit', async () => {
    const verp = returnPathOf(await createMessage(harness.db, { tenantId: acme, to: address('slow') }))
    const started = Date.now()
    const closed = await conversation(strict.smtpPort, async (say) => {
      await say('EHLO slow.test\r\n')
      await say('MAIL FROM:<>\r\n')
      await say(`RCPT TO:<${verp}>\r\n`)
      await say('DATA\r\n')
      // A line every 100 ms keeps the socket busy, so only the DATA limit can end this.
      for (let line = 0; line < 50; line++)
        if (!(await say(`X-Line-${line}: still coming\r\n`, 100))) return true
      return false
    })
    expect(closed).toBe(true)
    expect(Date.now() - started).toBeLessThan(4_000)
  })

  it('answers 421 to a client past the limit of clients at once', async () => {
    const holders = [connect(strict.smtpPort, '127.0.0.1'), connect(strict.smtpPort, '127.0.0.1')]
    try {
      await Promise.all(holders.map((socket) => new Promise((resolve) => socket.once('data', resolve))))
      const third = await new Promise<string>((resolve) => {
        const socket = connect(strict.smtpPort, '127.0.0.1')
        let received = ''
        socket.on('data', (chunk) => {
          received += chunk
        })
        socket.on('close', () => resolve(received))
      })
      expect(third).toMatch(/^421 /)
    } finally {
      for (const socket of holders) socket.destroy()
    }
  })
})

describe('connections from one client address', () => {
  let capped: Inbound
  beforeAll(async () => {
    capped = await startInbound({
      db: harness.db,
      logger: pino({ level: 'silent' }),
      host: '127.0.0.1',
      smtpPort: 0,
      httpPort: 0,
      secrets: TEST_SECRETS,
      bounceDomain: TEST_BOUNCE_DOMAIN,
      softBounceLimit: 3,
      limits: { maxClientsPerAddress: 2 },
    })
    return () => capped.close()
  })

  it('answers 421 to a third connection from one address, serves another address, and frees the slot on close', async () => {
    const refusedBefore = await refusalsOf(capped, 'too-many-connections')
    const holders = await Promise.all([opened(capped.smtpPort), opened(capped.smtpPort)])
    try {
      for (const holder of holders) expect(holder.greeting).toMatch(/^220 /)

      const third = await opened(capped.smtpPort)
      expect(third.greeting).toMatch(/^421 4\.7\.0 too many connections from your address \(at most 2/)
      await third.closed

      // A real message from the same address is refused before it is read, and applied nowhere.
      const to = address('capped')
      const id = await createMessage(harness.db, { tenantId: acme, to })
      const verp = returnPathOf(id)
      const refused = await sendReport(capped.smtpPort, verp, dsn({ to: verp, recipient: to }))
      expect(refused).toMatchObject({ ok: false, code: 421 })
      expect(await statusOf(harness.db, id)).toBe('sent')
      expect(await refusalsOf(capped, 'too-many-connections')).toBe(refusedBefore + 2)

      // Another client address is not held back by this one (127.0.0.2 is loopback too).
      const neighbour = await opened(capped.smtpPort, '127.0.0.2')
      expect(neighbour.greeting).toMatch(/^220 /)
      neighbour.socket.destroy()

      // One holder leaves: its slot is free again and a report from the address is applied.
      holders[0]?.socket.destroy()
      await holders[0]?.closed
      await eventually(
        async () => {
          const result = await sendReport(capped.smtpPort, verp, dsn({ to: verp, recipient: to }))
          if (!result.ok) throw new Error(`still refused: ${result.message}`)
          return result
        },
        { timeoutMs: 5_000 },
      )
      expect(await statusOf(harness.db, id)).toBe('bounced')
    } finally {
      for (const holder of holders) holder.socket.destroy()
    }
  })
})

/** A raw connection from `localAddress`: its first reply (the greeting or the refusal) and its close. */
async function opened(port: number, localAddress = '127.0.0.1') {
  const socket = connect({ port, host: '127.0.0.1', localAddress })
  socket.on('error', () => {})
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  const greeting = await new Promise<string>((resolve) => {
    socket.once('data', (chunk) => resolve(chunk.toString()))
    socket.once('close', () => resolve(''))
  })
  return { socket, greeting, closed }
}

async function refusalsOf(server: Inbound, reason: string): Promise<number> {
  const metric = await server.metrics.registry.getSingleMetric('fairlane_inbound_refusals_total')?.get()
  return metric?.values.find((value) => value.labels.reason === reason)?.value ?? 0
}

/**
 * A hand-driven SMTP session: `say` writes a line (after `delayMs`) and answers false once the
 * server has closed the connection. Resolves with what `script` returns.
 */
async function conversation<T>(
  port: number,
  script: (say: (line: string, delayMs?: number) => Promise<boolean>) => Promise<T>,
): Promise<T> {
  const socket = connect(port, '127.0.0.1')
  let open = true
  socket.on('close', () => {
    open = false
  })
  socket.on('error', () => {})
  await new Promise((resolve) => socket.once('data', resolve))
  try {
    return await script(async (line, delayMs = 20) => {
      await new Promise((resolve) => setTimeout(resolve, delayMs))
      if (!open) return false
      socket.write(line)
      return true
    })
  } finally {
    socket.destroy()
  }
}

describe('automatic replies, health and metrics', () => {
  it('records an out-of-office as an auto-reply and changes nothing', async () => {
    const to = address('away')
    const id = await createMessage(harness.db, { tenantId: acme, to })
    const before = await counted(harness.inbound, 'auto-reply')
    await sendReport(harness.inbound.smtpPort, returnPathOf(id), outOfOffice(returnPathOf(id)))
    expect(await counted(harness.inbound, 'auto-reply')).toBe(before + 1)
    expect(await eventsOf(harness.db, id)).toEqual([])
    expect(await suppressionOf(harness.db, acme, to)).toBeUndefined()
  })

  it('answers /health and serves fairlane_inbound_messages_total{kind}', async () => {
    const base = `http://127.0.0.1:${harness.inbound.httpPort}`
    const health = await fetch(`${base}/health`)
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({ ok: true, status: 'running' })
    const metrics = await eventually(async () => {
      const text = await (await fetch(`${base}/metrics`)).text()
      return text.includes('fairlane_inbound_messages_total{kind="auto-reply"}') ? text : undefined
    })
    for (const kind of [
      'hard-bounce',
      'soft-bounce',
      'complaint',
      'unparseable',
      'forged',
      'unknown-message',
    ]) {
      expect(metrics).toContain(`fairlane_inbound_messages_total{kind="${kind}"}`)
    }
    expect((await fetch(`${base}/nope`)).status).toBe(404)
  })
})

async function refusals(reason: string): Promise<number> {
  const metric = await harness.inbound.metrics.registry
    .getSingleMetric('fairlane_inbound_refusals_total')
    ?.get()
  return metric?.values.find((value) => value.labels.reason === reason)?.value ?? 0
}

/** A message of `bytes` body bytes, produced as it is sent: the test never holds it whole either. */
function hugeMessage(to: string, bytes: number): Readable {
  const block = `${'x'.repeat(998)}\r\n`.repeat(1024)
  let sent = 0
  let started = false
  return new Readable({
    read() {
      if (!started) {
        started = true
        this.push(`To: ${to}\r\nSubject: big\r\n\r\n`)
      } else if (sent >= bytes) this.push(null)
      else {
        sent += block.length
        this.push(block)
      }
    },
  })
}
