import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { type OutgoingMail, SigningFailedError } from '@fairlane/core/delivery'
import { dkimVerify } from 'mailauth/lib/dkim/verify'
import nodemailer from 'nodemailer'
import { beforeAll, describe, expect, it } from 'vitest'
import { installBodyHandoff } from './body-handoff'
import { dkimResolver, testDkimKey } from './dkim/testing/test-key'
import { DKIM_SIGNED, installDkimSignatureCheck } from './dkim-signature-check'
import { outgoingMessage } from './message-options'

const DOMAIN = 'news.acme.test'
const SELECTOR = 'fl2026a'
let privateKey: KeyObject
let record: string

beforeAll(() => {
  const key = testDkimKey()
  privateKey = key.privateKey
  record = key.record
})

const mail = (overrides: Partial<OutgoingMail> = {}): OutgoingMail => ({
  from: { name: 'Acmé News', address: `news@${DOMAIN}` },
  to: 'reader@example.test',
  envelope: { from: `fl-bounces+x@${DOMAIN}`, to: 'reader@example.test' },
  dkim: { domainName: DOMAIN, keySelector: SELECTOR, privateKey },
  subject: 'December',
  html: '<p>Hello   there</p>',
  text: 'Hello there',
  messageId: '<m1@news.acme.test>',
  headers: {
    'List-Unsubscribe': '<https://u.test/x>',
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  },
  ...overrides,
})

async function verify(message: Buffer) {
  const { results } = await dkimVerify(message, {
    resolver: dkimResolver({ selector: SELECTOR, domain: DOMAIN, record: () => record }),
  })
  return results
}

/** A transport as the lanes have it (check, then hand-off), that keeps what it would send. */
function capturingTransport() {
  const sent: Buffer[] = []
  const transport = nodemailer.createTransport({
    name: 'capture',
    version: '1',
    send(
      message: { message: { createReadStream(): NodeJS.ReadableStream } },
      callback: (error: Error | null, info: unknown) => void,
    ) {
      const chunks: Buffer[] = []
      const stream = message.message.createReadStream()
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('error', (error: Error) => callback(error, null))
      stream.on('end', () => {
        sent.push(Buffer.concat(chunks))
        callback(null, { response: '250 ok' })
      })
    },
  } as never)
  installDkimSignatureCheck(transport)
  installBodyHandoff(transport)
  return { transport, sent }
}

describe('outgoingMessage with a DKIM key (signForSending)', () => {
  it('sends mail to be signed as raw: composed, signed for its domain, and the same bytes leave', async () => {
    const message = await outgoingMessage(mail())
    expect(Object.keys(message).sort()).toEqual(['dkimSigned', 'envelope', 'messageId', 'raw'])
    expect(message.envelope).toEqual(mail().envelope)
    const raw = message.raw as Buffer
    const [signature] = await verify(raw)
    expect(signature?.status.result).toBe('pass')
    expect(signature?.signingDomain).toBe(DOMAIN)
    expect(raw.toString()).toContain('Message-ID: <m1@news.acme.test>')
    const { transport, sent } = capturingTransport()
    await transport.sendMail(message as never)
    expect(sent).toEqual([raw])
  })

  it('signs a submitted message (raw, bare LF line ends) as it will be received', async () => {
    const submitted = Buffer.from(
      'From: app@news.acme.test\nTo: reader@example.test\nSubject: hi\n\nbody  \n',
    )
    const message = await outgoingMessage(mail({ raw: submitted }))
    const raw = message.raw as Buffer
    expect(raw.toString()).not.toMatch(/[^\r]\n/)
    expect((await verify(raw))[0]?.status.result).toBe('pass')
  })

  it('leaves mail without a DKIM key unsigned, the same composed bytes', async () => {
    const now = new Date('2026-12-06T10:00:00Z')
    const unsigned = await outgoingMessage(mail({ dkim: undefined }), now)
    expect(unsigned.dkimSigned).toBeUndefined()
    expect(unsigned.raw.toString()).not.toMatch(/^DKIM-Signature/i)
    const signed = await outgoingMessage(mail(), now)
    expect(signed.raw.subarray(signed.raw.length - unsigned.raw.length).equals(unsigned.raw)).toBe(true)
  })

  it('throws SigningFailedError, naming the domain and why, when the signer refuses the key', async () => {
    const ed25519 = generateKeyPairSync('ed25519').privateKey
    const failed = outgoingMessage(
      mail({ dkim: { domainName: DOMAIN, keySelector: SELECTOR, privateKey: ed25519 } }),
    )
    await expect(failed).rejects.toThrow(SigningFailedError)
    await expect(failed).rejects.toThrow(
      /could not DKIM-sign the message for news.acme.test: .*RSA private key/,
    )
  })
})

describe('the signature check on raw signed mail', () => {
  it('fails a message marked signed that does not open with its signature, before the transport is called', async () => {
    const { transport, sent } = capturingTransport()
    const unsigned = Buffer.from('From: app@news.acme.test\r\n\r\nbody\r\n')
    const send = transport.sendMail({
      envelope: mail().envelope,
      raw: unsigned,
      [DKIM_SIGNED]: true,
    } as never)
    await expect(send).rejects.toThrow(SigningFailedError)
    expect(sent).toEqual([])
  })
})
