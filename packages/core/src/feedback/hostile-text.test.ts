import { fastestMs } from '@fairlane/testing/fastest-ms'
import { describe, expect, it } from 'vitest'
import type { FeedbackMail } from './feedback-mail'
import { readDeliveryStatus } from './read-delivery-status'
import { readFeedback } from './read-feedback'

/**
 * Everything these readers match was written by whoever sent the report. Each case is the worst
 * shape for one pattern at the size the inbound reader lets through (mailparser's 1 MB header cap,
 * 256,000 characters of text or of a part); a quadratic pattern takes seconds on it, a linear one
 * a few milliseconds. The bound is the fastest of three runs, so one slow turn of a loaded machine
 * does not fail it.
 */
const BOUND_MS = 50
const HEADER_CHARS = 1_000_000
const TEXT_CHARS = 256_000

function repeated(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length)
}

function mail(partial: Partial<FeedbackMail>): FeedbackMail {
  return { headers: [], subject: '', text: '', parts: [], ...partial }
}

describe('reading reports an outsider wrote', () => {
  it('reads a 1 MB subject of "warning: message " without " delayed" in linear time', () => {
    const subject = repeated('Warning: message ', HEADER_CHARS)
    expect(fastestMs(() => readFeedback(mail({ subject })))).toBeLessThan(BOUND_MS)
  })

  it("still knows Exim's delay warning by its subject", () => {
    const warning = mail({
      subject: 'Warning: message 1kmAbC-0001xY-Ab delayed 24 hours',
      text: 'This message was delayed.\n\n  bob@example.net\n    retry timeout not reached; 451 4.4.1 try later',
    })
    expect(readFeedback(warning)).toMatchObject({ kind: 'bounce', format: 'text' })
  })

  it.each([
    ['an out-of-office subject of spaces', mail({ subject: ' '.repeat(HEADER_CHARS) })],
    ['a From of words', mail({ headers: [{ name: 'from', value: repeated('mailer ', HEADER_CHARS) }] })],
    [
      'a Content-Type of report-type parameters',
      mail({
        headers: [
          { name: 'content-type', value: `multipart/report${repeated('; report-type ', HEADER_CHARS)}` },
        ],
      }),
    ],
    [
      'a prose bounce of "host " without a reply code',
      mail({ subject: 'failure notice', text: repeated('host  ', TEXT_CHARS) }),
    ],
    [
      'a prose bounce of status codes followed by digits',
      mail({ subject: 'failure notice', text: `5.1.1${'.1'.repeat(TEXT_CHARS / 2)}` }),
    ],
    [
      'a prose bounce of "delayed " and digits',
      mail({ subject: 'failure notice', text: repeated('delayed 1', TEXT_CHARS) }),
    ],
    [
      'a prose bounce of an unclosed bracket',
      mail({ subject: 'failure notice', text: `550 no\n<${repeated('a@', TEXT_CHARS)}` }),
    ],
  ])('reads %s in linear time', (_shape, hostile) => {
    expect(fastestMs(() => readFeedback(hostile))).toBeLessThan(BOUND_MS)
  })

  it('reads a delivery status of long bracketed and diagnostic fields in linear time', () => {
    const recipient = [
      `Final-Recipient: rfc822; <${'a'.repeat(TEXT_CHARS / 2)}`,
      `Diagnostic-Code: smtp; ${repeated('host  ', TEXT_CHARS / 4)}`,
      `  ${repeated('said: ', TEXT_CHARS / 4)}`,
    ].join('\n')
    const report = `Reporting-MTA: dns; x\n\n${recipient}`
    expect(fastestMs(() => readDeliveryStatus(report))).toBeLessThan(BOUND_MS)
  })
})
