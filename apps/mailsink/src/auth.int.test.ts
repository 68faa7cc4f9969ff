import { dkimRecordValue, generateDkimKeyPair } from '@fairlane/core'
import { startTestDnsServer, type TestDnsServer } from '@fairlane/testing'
import type { DNSResolver } from 'mailauth'
import { createTransport } from 'nodemailer'
import type Mail from 'nodemailer/lib/mailer'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dnsResolver } from './auth'
import { type MailSink, startMailSink } from './sink'
import type { StoredMessage } from './store'

/**
 * The sink's verdict on real signatures: mail signed by nodemailer (as the worker signs it) with a
 * fresh RSA-2048 key, sent over SMTP, checked by mailauth against a real DNS server (the test DNS
 * server here, the sink's own in the second suite).
 */
const logger = pino({ level: 'silent' })
const DOMAIN = 'shop.test'
const SELECTOR = 'fl202612test'
const RETURN_PATH = 'rp-1a2b-c3d4@fl-bounces.shop.test'

type Signer = Awaited<ReturnType<typeof generateDkimKeyPair>>
let key: Signer
let otherKey: Signer

beforeAll(async () => {
  ;[key, otherKey] = await Promise.all([generateDkimKeyPair(), generateDkimKeyPair()])
})

function api(sink: MailSink) {
  const base = `http://127.0.0.1:${sink.httpPort}`
  return {
    base,
    async messages(): Promise<StoredMessage[]> {
      const response = await fetch(`${base}/messages`)
      expect(response.status).toBe(200)
      return (await response.json()) as StoredMessage[]
    },
    async message(id: string): Promise<StoredMessage> {
      const response = await fetch(`${base}/messages/${id}`)
      expect(response.status).toBe(200)
      return (await response.json()) as StoredMessage
    },
    /** The stored message whose Subject is `subject` (the sink stores before it answers 250). */
    async bySubject(subject: string): Promise<StoredMessage> {
      const found = (await this.messages()).filter((message) => message.subject === subject)
      expect(found).toHaveLength(1)
      return found[0] as StoredMessage
    },
    records(init?: RequestInit & { query?: string }) {
      return fetch(`${base}/dns/records${init?.query ?? ''}`, init)
    },
    publish(record: unknown) {
      return this.records({
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(record),
      })
    },
  }
}

function message(subject: string, extra: Partial<Mail.Options> = {}): Mail.Options {
  return {
    from: `"Shop News" <news@${DOMAIN}>`,
    to: 'reader@example.net',
    subject,
    text: `Hello from ${DOMAIN}: ${subject}`,
    html: `<p>Hello from ${DOMAIN}: ${subject}</p>`,
    envelope: { from: RETURN_PATH, to: ['reader@example.net'] },
    ...extra,
  }
}

const dkim = (signer: Signer, selector = SELECTOR) => ({
  domainName: DOMAIN,
  keySelector: selector,
  privateKey: signer.privateKeyPem,
})

function smtp(sink: MailSink) {
  return createTransport({ host: '127.0.0.1', port: sink.smtpPort, secure: false, ignoreTLS: true })
}

describe('DKIM, SPF and DMARC of received mail', () => {
  let dns: TestDnsServer
  let sink: MailSink
  let client: ReturnType<typeof api>
  const lookups: string[] = []

  beforeAll(async () => {
    dns = await startTestDnsServer()
    const resolve = dnsResolver([dns.address])
    // Counts what the sink asks, to show unsigned mail costs no lookup.
    const counting: DNSResolver = (name, rrtype) => {
      lookups.push(`${rrtype} ${name}`)
      return resolve(name, rrtype)
    }
    sink = await startMailSink({
      host: '127.0.0.1',
      smtpPort: 0,
      httpPort: 0,
      maxMessages: 100,
      logger,
      resolver: counting,
    })
    client = api(sink)
    dns.publish({
      type: 'TXT',
      name: `${SELECTOR}._domainkey.${DOMAIN}`,
      value: dkimRecordValue(key.publicKey),
    })
    dns.publish({
      type: 'TXT',
      name: `wrong._domainkey.${DOMAIN}`,
      value: dkimRecordValue(otherKey.publicKey),
    })
    // The return path as a tenant publishes it: a CNAME to the platform's host, which has the SPF.
    dns.publish({ type: 'CNAME', name: `fl-bounces.${DOMAIN}`, value: 'bounces.fairlane.test' })
    dns.publish({ type: 'TXT', name: 'bounces.fairlane.test', value: 'v=spf1 ip4:127.0.0.1 -all' })
    dns.publish({
      type: 'TXT',
      name: `_dmarc.${DOMAIN}`,
      value: `v=DMARC1; p=none; rua=mailto:dmarc@${DOMAIN}`,
    })
  })
  afterAll(async () => {
    await sink?.close()
    await dns?.close()
  })

  it('passes mail signed with the published key: d=, SPF of the return path, DMARC aligned', async () => {
    await smtp(sink).sendMail({ ...message('signed'), dkim: dkim(key) })
    const stored = await client.bySubject('signed')
    expect(stored.headers['dkim-signature']).toContain(`d=${DOMAIN}`)
    expect(stored.auth).toEqual({
      dkim: 'pass',
      dkimDomain: DOMAIN,
      dkimSelector: SELECTOR,
      spf: 'pass',
      spfDomain: `fl-bounces.${DOMAIN}`,
      dmarc: 'pass',
      aligned: true,
    })
    expect(stored.envelope).toEqual({ from: RETURN_PATH, to: ['reader@example.net'] })
    // The same on the message's own URL, and in the inbox as a badge with the domain.
    expect((await client.message(stored.id)).auth).toEqual(stored.auth)
    const inbox = await (await fetch(`${client.base}/`)).text()
    expect(inbox).toContain('<span class="badge pass"')
    expect(inbox).toContain(`d=${DOMAIN}`)
    const view = await (await fetch(`${client.base}/view/${stored.id}`)).text()
    expect(view).toContain('DKIM pass')
    expect(view).toContain(`SPF</dt><dd>pass (fl-bounces.${DOMAIN})`)
  })

  it('fails a signed message whose body was changed on the way', async () => {
    // Signed as the worker would, then altered after signing (as a mangling relay would).
    const signed = await createTransport({ streamTransport: true, buffer: true }).sendMail({
      ...message('altered'),
      dkim: dkim(key),
    })
    const raw = (signed.message as Buffer).toString('utf8').replace('Hello from', 'Hullo from')
    expect(raw).toContain('Hullo from')
    await smtp(sink).sendMail({ envelope: { from: RETURN_PATH, to: ['reader@example.net'] }, raw })
    const { auth } = await client.bySubject('altered')
    expect(auth).toMatchObject({ dkim: 'fail', dkimDomain: DOMAIN, aligned: false })
    expect(auth.dkimReason).toMatch(/body hash/)
  })

  it('fails a signature whose selector holds another key, and one whose record is missing', async () => {
    await smtp(sink).sendMail({ ...message('wrong key'), dkim: dkim(key, 'wrong') })
    const wrong = (await client.bySubject('wrong key')).auth
    expect(wrong).toMatchObject({ dkim: 'fail', dkimDomain: DOMAIN, dkimSelector: 'wrong' })
    expect(wrong.dkimReason).toMatch(/signature/)

    await smtp(sink).sendMail({ ...message('no record'), dkim: dkim(key, 'unpublished') })
    const missing = (await client.bySubject('no record')).auth
    expect(missing).toMatchObject({ dkim: 'fail', dkimDomain: DOMAIN, dkimSelector: 'unpublished' })
    expect(missing.dkimReason).toMatch(/key/)
  })

  it('says none for unsigned mail, without a single DNS lookup', async () => {
    lookups.length = 0
    const transport = createTransport({
      host: '127.0.0.1',
      port: sink.smtpPort,
      secure: false,
      ignoreTLS: true,
      pool: true,
    })
    try {
      await Promise.all(Array.from({ length: 50 }, (_, i) => transport.sendMail(message(`unsigned ${i}`))))
    } finally {
      transport.close()
    }
    const unsigned = (await client.messages()).filter((stored) => stored.subject.startsWith('unsigned '))
    expect(unsigned).toHaveLength(50)
    for (const stored of unsigned) expect(stored.auth).toEqual({ dkim: 'none' })
    expect(lookups).toEqual([])
    const inbox = await (await fetch(`${client.base}/`)).text()
    expect(inbox).toContain('<span class="badge none"')
  })
})

describe("the sink's own DNS server", () => {
  let sink: MailSink
  let client: ReturnType<typeof api>

  beforeAll(async () => {
    // No DNS_SERVERS: the DKIM check asks the DNS server the sink runs.
    sink = await startMailSink({
      host: '127.0.0.1',
      smtpPort: 0,
      httpPort: 0,
      dnsPort: 0,
      maxMessages: 100,
      logger,
    })
    client = api(sink)
  })
  afterAll(async () => {
    await sink?.close()
  })

  it('serves records published over HTTP, and the DKIM check resolves through it', async () => {
    const record = {
      type: 'TXT',
      name: `${SELECTOR}._domainkey.${DOMAIN}`,
      value: dkimRecordValue(key.publicKey),
    }
    const created = await client.publish(record)
    expect(created.status).toBe(201)
    expect(await created.json()).toEqual(record)
    expect(await (await client.records()).json()).toEqual([record])
    expect(sink.dns?.address).toMatch(/^127\.0\.0\.1:\d+$/)

    await smtp(sink).sendMail({ ...message('through the sink DNS'), dkim: dkim(key) })
    expect((await client.bySubject('through the sink DNS')).auth).toMatchObject({
      dkim: 'pass',
      dkimDomain: DOMAIN,
    })

    const removed = await client.records({
      method: 'DELETE',
      query: `?name=${SELECTOR}._domainkey.${DOMAIN}&type=TXT`,
    })
    expect(removed.status).toBe(204)
    expect(await (await client.records()).json()).toEqual([])
    await smtp(sink).sendMail({ ...message('record removed'), dkim: dkim(key) })
    expect((await client.bySubject('record removed')).auth).toMatchObject({ dkim: 'fail' })
  })

  it('answers 400 naming the field for a bad record', async () => {
    const cases: Array<[unknown, string]> = [
      [{ type: 'SRV', name: DOMAIN, value: '0 5 5060 sip.example.test' }, 'type'],
      [{ type: 'A', name: DOMAIN, value: 'not-an-address' }, 'value'],
      [{ type: 'TXT', name: 'not a name', value: 'v=spf1 -all' }, 'name'],
      [{ type: 'TXT', name: DOMAIN, value: 7 }, 'value'],
      [{ type: 'CNAME', name: `fl-bounces.${DOMAIN}`, value: 'no spaces allowed' }, 'value'],
    ]
    for (const [body, field] of cases) {
      const response = await client.publish(body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      const { error } = (await response.json()) as {
        error: { code: string; message: string; details: Array<{ path: string }> }
      }
      expect(error.code).toBe('invalid_record')
      expect(error.details).toEqual([{ path: field, message: error.message }])
    }
    const badDelete = await client.records({ method: 'DELETE', query: '?type=TXT' })
    expect(badDelete.status).toBe(400)
    expect(((await badDelete.json()) as { error: { details: unknown } }).error.details).toEqual([
      { path: 'name', message: expect.any(String) },
    ])
    const badType = await client.records({ method: 'DELETE', query: `?name=${DOMAIN}&type=SRV` })
    expect(badType.status).toBe(400)
  })

  it('says so when the sink runs no DNS server', async () => {
    const plain = await startMailSink({
      host: '127.0.0.1',
      smtpPort: 0,
      httpPort: 0,
      maxMessages: 10,
      logger,
    })
    try {
      const response = await fetch(`http://127.0.0.1:${plain.httpPort}/dns/records`)
      expect(response.status).toBe(404)
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('dns_not_running')
    } finally {
      await plain.close()
    }
  })
})
