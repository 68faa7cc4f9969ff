import { Resolver } from 'node:dns/promises'
import { connect, type Socket } from 'node:net'
import { eventually, freePort, spawnEntry } from '@fairlane/testing'
import { createTransport } from 'nodemailer'
import { describe, expect, it } from 'vitest'

/**
 * The sink's process (main.ts) bounds its shutdown by SHUTDOWN_FORCE_EXIT_MS, like web and worker:
 * a client holding its SMTP connection open keeps the server's close waiting (here up to
 * smtp-server's own 2 s close timeout), and the process leaves at the bound, exit code 1, saying so.
 */
describe('mail sink process', () => {
  it("serves DNS on its HTTP port number over UDP, with the platform hosts' SPF", async () => {
    const [smtpPort, httpPort] = [await freePort(), await freePort()]
    const sink = spawnEntry('apps/mailsink/src/main.ts', {
      MAILSINK_SMTP_PORT: String(smtpPort),
      MAILSINK_HTTP_PORT: String(httpPort),
      RETURN_PATH_HOST: 'rp.fairlane.test',
    })
    try {
      await eventually(() => sink.output().includes('mailsink: SMTP'), {
        timeoutMs: 30_000,
        what: 'the sink',
      })
      expect(sink.output()).toContain(`DNS 127.0.0.1:${httpPort} (udp)`)
      const resolver = new Resolver({ timeout: 2_000, tries: 1 })
      resolver.setServers([`127.0.0.1:${httpPort}`])
      expect(await resolver.resolveTxt('rp.fairlane.test')).toEqual([['v=spf1 ip4:127.0.0.0/8 ip6:::1 ~all']])
      const records = await (await fetch(`http://127.0.0.1:${httpPort}/dns/records`)).json()
      expect(records).toContainEqual({
        type: 'TXT',
        name: 'bounces.fairlane.localhost',
        value: 'v=spf1 ip4:127.0.0.0/8 ip6:::1 ~all',
      })
    } finally {
      sink.child.kill('SIGKILL')
    }
  })
})

describe('mail sink process reports', () => {
  it('sends the reports of its bounce faults to INBOUND_SMTP_URL, and records that nobody answered', async () => {
    const [smtpPort, httpPort, inboundPort] = [await freePort(), await freePort(), await freePort()]
    const sink = spawnEntry('apps/mailsink/src/main.ts', {
      MAILSINK_SMTP_PORT: String(smtpPort),
      MAILSINK_HTTP_PORT: String(httpPort),
      INBOUND_SMTP_URL: `smtp://127.0.0.1:${inboundPort}`,
    })
    try {
      await eventually(() => sink.output().includes('mailsink: SMTP'), {
        timeoutMs: 30_000,
        what: 'the sink',
      })
      const base = `http://127.0.0.1:${httpPort}`
      const fault = await fetch(`${base}/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ match: 'gone@example.com', bounce: '5.1.1' }),
      })
      expect(fault.status).toBe(201)
      await createTransport({ host: '127.0.0.1', port: smtpPort, ignoreTLS: true }).sendMail({
        from: 'news@shop.example',
        to: 'gone@example.com',
        subject: 'to a dead address',
        text: 'hello',
        envelope: { from: 'b+1@bounces.fairlane.test', to: ['gone@example.com'] },
      })
      const failed = await eventually(async () => {
        const listed = (await (await fetch(`${base}/notifications?status=failed`)).json()) as {
          notifications: Array<{ to: string; error: string }>
        }
        return listed.notifications[0]
      })
      expect(failed).toMatchObject({
        to: 'b+1@bounces.fairlane.test',
        error: expect.stringContaining(`127.0.0.1:${inboundPort}`),
      })
    } finally {
      sink.child.kill('SIGKILL')
    }
  })
})

describe('mail sink shutdown', () => {
  it('exits 1 at SHUTDOWN_FORCE_EXIT_MS when a client holds the close up', async () => {
    const [smtpPort, httpPort] = [await freePort(), await freePort()]
    const sink = spawnEntry('apps/mailsink/src/main.ts', {
      MAILSINK_SMTP_PORT: String(smtpPort),
      MAILSINK_HTTP_PORT: String(httpPort),
      SHUTDOWN_FORCE_EXIT_MS: '700',
    })
    let client: Socket | undefined
    try {
      await eventually(() => sink.output().includes('mailsink: SMTP'), {
        timeoutMs: 30_000,
        what: 'the sink',
      })
      // A client in the middle of a message that never finishes it and never hangs up (half-open:
      // it ignores the sink's 421 and FIN), so the SMTP server's close waits for it.
      client = connect({ host: '127.0.0.1', port: smtpPort, allowHalfOpen: true })
      client.on('error', () => {})
      let replies = ''
      client.on('data', (data) => {
        replies += String(data)
      })
      await eventually(() => replies.startsWith('220 '), { what: 'the greeting' })
      client.write('EHLO client.test\r\nMAIL FROM:<a@client.test>\r\nRCPT TO:<b@client.test>\r\nDATA\r\n')
      await eventually(() => replies.includes('354'), { what: 'the DATA go-ahead' })
      client.write('Subject: never finished\r\n\r\nthe first line of a body that never ends')

      const signalledAt = Date.now()
      sink.child.kill('SIGTERM')
      const { code } = await sink.exited
      const tookMs = Date.now() - signalledAt
      expect(code, sink.output()).toBe(1)
      expect(sink.output()).toContain('mailsink: forced exit: shutdown took longer than 700 ms')
      expect(tookMs).toBeGreaterThanOrEqual(650)
      expect(tookMs).toBeLessThan(1_900)
    } finally {
      client?.destroy()
      sink.child.kill('SIGKILL')
    }
  })
})

describe('mail sink process receivers', () => {
  it('plays MAILSINK_RECEIVERS on the SMTP port number and publishes their MX records', async () => {
    const [smtpPort, httpPort] = [await freePort(), await freePort()]
    const sink = spawnEntry('apps/mailsink/src/main.ts', {
      MAILSINK_SMTP_PORT: String(smtpPort),
      MAILSINK_HTTP_PORT: String(httpPort),
      MAILSINK_RECEIVERS: '127.0.0.10=google,127.0.0.12=others',
    })
    try {
      await eventually(() => sink.output().includes('mailsink: receiver others'), {
        timeoutMs: 30_000,
        what: 'the sink',
      })
      expect(sink.output()).toContain(
        `mailsink: receiver google SMTP 127.0.0.10:${smtpPort}, MX gmail-smtp-in.l.google.com for gmail.test, googlemail.test`,
      )
      const resolver = new Resolver({ timeout: 2_000, tries: 1 })
      resolver.setServers([`127.0.0.1:${httpPort}`])
      expect(await resolver.resolveMx('others.test')).toEqual([{ exchange: 'mx.others.test', priority: 10 }])
      expect(await resolver.resolve4('mx.others.test')).toEqual(['127.0.0.12'])

      await createTransport({
        host: '127.0.0.10',
        port: smtpPort,
        localAddress: '127.0.0.2',
        ignoreTLS: true,
      }).sendMail({ from: 'a@sender.test', to: 'b@gmail.test', subject: 'via google', text: 'hello' })
      const base = `http://127.0.0.1:${httpPort}`
      const [message] = (await (await fetch(`${base}/messages?receiver=google`)).json()) as Array<{
        subject: string
        receiver: unknown
        sourceAddress: string
      }>
      expect(message).toMatchObject({
        subject: 'via google',
        receiver: { name: 'google', address: '127.0.0.10', port: smtpPort },
        sourceAddress: '127.0.0.2',
      })
      const receivers = await (await fetch(`${base}/receivers`)).json()
      expect(receivers).toMatchObject([
        { name: 'google', accepted: 1, sources: { '127.0.0.2': { accepted: 1 } } },
        { name: 'others', accepted: 0 },
      ])
    } finally {
      sink.child.kill('SIGKILL')
    }
  })
})
