import { Resolver } from 'node:dns/promises'
import { startTestDnsServer } from '@fairlane/testing'
import { createTransport } from 'nodemailer'
import { describe, expect, it } from 'vitest'
import { SELF_SIGNED_CERT, SELF_SIGNED_KEY } from './self-signed-cert'
import { publishReceivers, startTestSink } from './sink'

function resolverFor(address: string): Resolver {
  const resolver = new Resolver({ timeout: 2_000, tries: 1 })
  resolver.setServers([address])
  return resolver
}

describe('startTestSink with receivers', () => {
  it('plays the default receivers on one free port, with their MX records on its own DNS server', async () => {
    const sink = await startTestSink({ receivers: true })
    try {
      expect(sink.receivers.map((receiver) => receiver.name)).toEqual(['google', 'microsoft', 'others'])
      expect(sink.receivers.every((receiver) => receiver.port === sink.receiverPort)).toBe(true)
      const resolver = resolverFor(sink.dns?.address ?? '')
      const [mx] = await resolver.resolveMx('outlook.test')
      expect(await resolver.resolve4(mx?.exchange ?? '')).toEqual(['127.0.0.11'])

      sink.publishReceiverDomain('shop.test', 'others')
      const [shop] = await resolver.resolveMx('shop.test')
      const [address = ''] = await resolver.resolve4(shop?.exchange ?? '')
      await createTransport({
        host: address,
        port: sink.receiverPort,
        localAddress: '127.0.0.2',
        ignoreTLS: true,
      }).sendMail({ from: 'a@sender.test', to: 'b@shop.test', subject: 'to a small domain', text: 'hello' })
      expect(sink.store.list({ receiver: 'others' })).toMatchObject([
        { subject: 'to a small domain', sourceAddress: '127.0.0.2', receiver: { name: 'others' } },
      ])
    } finally {
      await sink.close()
    }
  })

  it('publishes the receivers and extra domains on a test DNS server', async () => {
    const sink = await startTestSink({ receivers: [{ name: 'google', address: '127.0.0.10' }], dns: false })
    const dns = await startTestDnsServer()
    try {
      expect(sink.dns).toBeUndefined()
      publishReceivers(dns, sink, { 'acme.test': 'google' })
      const resolver = resolverFor(dns.address)
      expect(await resolver.resolveMx('acme.test')).toEqual([
        { exchange: 'gmail-smtp-in.l.google.com', priority: 10 },
      ])
      expect(await resolver.resolve4('gmail-smtp-in.l.google.com')).toEqual(['127.0.0.10'])
      expect(() => publishReceivers(dns, sink, { 'x.test': 'yahoo' })).toThrow(/no receiver "yahoo"/)
    } finally {
      await Promise.all([sink.close(), dns.close()])
    }
  })

  it('offers STARTTLS at a receiver given a certificate, and records which messages came over TLS', async () => {
    const sink = await startTestSink({
      receivers: [
        { name: 'secure', address: '127.0.0.20', tls: { key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT } },
        { name: 'plain', address: '127.0.0.21' },
      ],
    })
    try {
      const send = (host: string, subject: string) =>
        createTransport({
          host,
          port: sink.receiverPort,
          requireTLS: host === '127.0.0.20',
          tls: { rejectUnauthorized: false },
        }).sendMail({ from: 'a@sender.test', to: 'b@secure.test', subject, text: 'hello' })
      await send('127.0.0.20', 'over tls')
      await send('127.0.0.21', 'in the clear')
      expect(sink.store.list().map(({ subject, tls }) => ({ subject, tls }))).toEqual([
        { subject: 'over tls', tls: true },
        { subject: 'in the clear', tls: false },
      ])
    } finally {
      await sink.close()
    }
  })
})
