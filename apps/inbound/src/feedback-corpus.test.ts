import { readFileSync } from 'node:fs'
import { type Feedback, readFeedback } from '@fairlane/core'
import { describe, expect, it } from 'vitest'
import { readMail } from './read-mail'

/**
 * The corpus: reports written from RFC 3464's and RFC 5965's examples and from the formats large
 * providers and MTAs send (Gmail, Microsoft, Yahoo, Postfix, Exim, qmail), read end to end as the
 * inbound server reads them: MIME by mailparser, then `readFeedback`.
 */
async function read(name: string): Promise<Feedback> {
  const { mail } = await readMail(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)))
  return readFeedback(mail)
}

type Expected = Partial<Record<string, unknown>> & { kind: Feedback['kind'] }

const CORPUS: Array<[file: string, expected: Expected]> = [
  [
    '01-rfc3464-simple-hard.eml',
    {
      kind: 'bounce',
      format: 'dsn',
      reportingMta: 'cs.utk.edu',
      recipients: [
        {
          finalRecipient: 'louisa@larry.slip.umd.edu',
          originalRecipient: 'louisa@larry.slip.umd.edu',
          action: 'failed',
          status: '5.1.1',
          kind: 'hard',
          remoteMta: 'larry.slip.umd.edu',
          diagnostic: '550 5.1.1 <louisa@larry.slip.umd.edu>... User unknown',
        },
      ],
      original: {
        messageId: '<199407022110.RAA08776@cs.utk.edu>',
        from: 'root@cs.utk.edu',
        to: 'louisa@larry.slip.umd.edu',
        subject: 'Hello Louisa',
      },
    },
  ],
  [
    '02-rfc3464-multi-recipient.eml',
    {
      kind: 'bounce',
      format: 'dsn',
      recipients: [
        expect.objectContaining({
          finalRecipient: 'arathib@vnet.ibm.com',
          status: '5.0.0',
          kind: 'hard',
          diagnostic: "550 'arathib@vnet.IBM.COM' is not a registered gateway user",
        }),
        expect.objectContaining({
          finalRecipient: 'johnh@hpnjld.njd.hp.com',
          action: 'delayed',
          status: '4.0.0',
          kind: 'soft',
        }),
        expect.objectContaining({ finalRecipient: 'wsnell@sdcc13.ucsd.edu', status: '5.0.0', kind: 'hard' }),
      ],
    },
  ],
  [
    '03-gmail-hard.eml',
    {
      kind: 'bounce',
      format: 'dsn',
      recipients: [
        expect.objectContaining({
          finalRecipient: 'nobody.here@gmail.com',
          status: '5.1.1',
          kind: 'hard',
          remoteMta: expect.stringMatching(/^gmail-smtp-in\.l\.google\.com\. \(142\.250\.102\.27/),
          diagnostic: expect.stringMatching(
            /^550-5\.1\.1 The email account that you tried to reach does not exist\. .* gsmtp$/,
          ),
        }),
      ],
      original: expect.objectContaining({ messageId: '<b7f1c2@fairlane.test>' }),
    },
  ],
  [
    '04-gmail-delayed.eml',
    {
      kind: 'bounce',
      recipients: [expect.objectContaining({ action: 'delayed', status: '4.2.2', kind: 'soft' })],
    },
  ],
  [
    '05-outlook-hard.eml',
    {
      kind: 'bounce',
      format: 'dsn',
      reportingMta: 'AM0PR01MB1234.eurprd01.prod.exchangelabs.com',
      recipients: [
        expect.objectContaining({
          finalRecipient: 'gone@contoso.com',
          status: '5.1.10',
          kind: 'hard',
          diagnostic: '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup',
        }),
      ],
    },
  ],
  [
    '06-postfix-delayed-mailbox-full.eml',
    {
      kind: 'bounce',
      recipients: [
        expect.objectContaining({
          finalRecipient: 'jane@example.net',
          action: 'delayed',
          status: '4.2.2',
          kind: 'soft',
          diagnostic: '452 4.2.2 <jane@example.net>: Mailbox full',
        }),
      ],
    },
  ],
  [
    '07-exim-text-hard.eml',
    {
      kind: 'bounce',
      format: 'text',
      recipients: [
        {
          finalRecipient: 'ghost@example.com',
          action: 'failed',
          status: '5.1.1',
          kind: 'hard',
          diagnostic:
            '550 5.1.1 <ghost@example.com>: Recipient address rejected: User unknown in virtual mailbox table',
        },
      ],
    },
  ],
  [
    '08-qmail-text-hard.eml',
    {
      kind: 'bounce',
      format: 'text',
      recipients: [
        expect.objectContaining({
          finalRecipient: 'nobody@example.org',
          status: '5.1.1',
          kind: 'hard',
          diagnostic: 'Remote host said: 550 5.1.1 <nobody@example.org>... User unknown',
        }),
      ],
    },
  ],
  [
    '09-yahoo-text-hard.eml',
    {
      kind: 'bounce',
      format: 'text',
      recipients: [
        expect.objectContaining({
          finalRecipient: 'no.such.person@yahoo.com',
          action: 'failed',
          status: '5.1.1',
          kind: 'hard',
          diagnostic: expect.stringMatching(
            /^554: delivery error: dd This user doesn't have a yahoo\.com account/,
          ),
        }),
      ],
    },
  ],
  [
    '10-exim-delay-warning.eml',
    {
      kind: 'bounce',
      format: 'text',
      recipients: [expect.objectContaining({ action: 'delayed', status: '4.3.0', kind: 'soft' })],
    },
  ],
  [
    '11-arf-rfc5965.eml',
    {
      kind: 'complaint',
      feedbackType: 'abuse',
      userAgent: 'SomeGenerator/1.0',
      originalMailFrom: 'b-aaaaaaaaaaaaaaaaaaaaaaaaaa-aaaaaaaaaa@bounces.fairlane.test',
      originalRcptTo: ['user@example.com'],
      reportingMta: 'mail.example.com',
      original: expect.objectContaining({
        messageId: '8787KJKJ3K4J3K4J3K4J3.mail@example.net',
        subject: 'Earn money',
      }),
    },
  ],
  [
    '12-arf-headers-only.eml',
    {
      kind: 'complaint',
      feedbackType: 'abuse',
      userAgent: 'Hotmail FBL',
      originalRcptTo: ['reader@hotmail.com'],
      original: expect.objectContaining({
        messageId: '<deadbeef@fairlane.test>',
        returnPath: '<b-aaaaaaaaaaaaaaaaaaaaaaaaaa-aaaaaaaaaa@bounces.fairlane.test>',
      }),
    },
  ],
  ['13-out-of-office.eml', { kind: 'auto-reply', reason: 'Auto-Submitted: auto-replied' }],
  ['14-exchange-automatic-reply.eml', { kind: 'auto-reply', reason: 'Auto-Submitted: auto-generated' }],
  ['15-malformed-report.eml', { kind: 'unparseable', reason: 'delivery report without a readable status' }],
  ['16-no-status-text.eml', { kind: 'unparseable', reason: 'bounce without a readable status' }],
  ['18-success-dsn.eml', { kind: 'ignored', reason: 'delivery report of a successful delivery' }],
  [
    '19-global-dsn-utf8.eml',
    {
      kind: 'bounce',
      recipients: [
        expect.objectContaining({
          finalRecipient: '山田@例え.jp',
          status: '5.1.1',
          kind: 'hard',
          diagnostic: '550 5.1.1 宛先のユーザーは存在しません',
        }),
      ],
    },
  ],
  [
    '20-human-reply.eml',
    { kind: 'unparseable', reason: 'neither a delivery report, a complaint nor an automatic reply' },
  ],
  [
    '21-expired-4xx-failed.eml',
    {
      kind: 'bounce',
      recipients: [expect.objectContaining({ action: 'failed', status: '4.4.7', kind: 'soft' })],
    },
  ],
]

describe('the feedback corpus', () => {
  it('has at least 12 samples of every kind that matters', () => {
    const kinds = new Set(CORPUS.map(([, expected]) => expected.kind))
    expect(CORPUS.length).toBeGreaterThanOrEqual(12)
    expect([...kinds].sort()).toEqual(['auto-reply', 'bounce', 'complaint', 'ignored', 'unparseable'])
  })

  for (const [file, expected] of CORPUS) {
    it(`reads ${file}`, async () => {
      const feedback = await read(file)
      if (expected.kind === 'bounce' || expected.kind === 'complaint')
        expect(feedback).toMatchObject(expected)
      else expect(feedback).toEqual(expected)
    })
  }

  it('stores a diagnostic with Latin-1 bytes, NUL, escape codes, a bare CR and a bidi override safely', async () => {
    const feedback = await read('17-latin1-control-diagnostic.eml')
    expect(feedback.kind).toBe('bounce')
    if (feedback.kind !== 'bounce') return
    const diagnostic = feedback.recipients[0]?.diagnostic ?? ''
    expect(feedback.recipients[0]).toMatchObject({
      finalRecipient: 'mueller@example.de',
      status: '5.1.1',
      kind: 'hard',
    })
    expect(diagnostic).toMatch(/^550 5\.1\.1 Postfach M\ufffdller unbekannt/)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting none are left
    expect(diagnostic).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/)
    expect(diagnostic).toContain('<script>alert(1)</script>')
    expect(new TextDecoder('utf-8', { fatal: true }).decode(new TextEncoder().encode(diagnostic))).toBe(
      diagnostic,
    )
  })

  it('knows a report by its Message-ID, and one without by its body (not its headers)', async () => {
    const withId = await readMail(readFileSync(new URL('./fixtures/03-gmail-hard.eml', import.meta.url)))
    expect(withId.reportId).toBe('message-id:<5f0c8e2a.1c69fb81.0001.gmail@mx.google.com>')
    const raw = readFileSync(new URL('./fixtures/18-success-dsn.eml', import.meta.url))
    const relayed = Buffer.concat([
      Buffer.from('Received: from relay2.example by inbound; Mon, 7 Dec 2026\n'),
      raw,
    ])
    const [first, second] = await Promise.all([readMail(raw), readMail(relayed)])
    expect(first.reportId).toMatch(/^body:[0-9a-f]{64}$/)
    expect(second.reportId).toBe(first.reportId)
  })
})
