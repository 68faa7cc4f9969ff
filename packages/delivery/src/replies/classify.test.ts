import { describe, expect, it } from 'vitest'
import { classifyConnectionFailure, classifyReply, type ReplyClass, type SmtpReply } from './classify'

/**
 * Real replies of the big providers, as published by the provider or quoted from logs in public
 * threads (addresses and session ids replaced). `source` says where each text was seen.
 */
type CorpusEntry = { name: string; reply: SmtpReply; expected: ReplyClass; source: string }

const ip: ReplyClass = { kind: 'throttle', scope: { kind: 'ip' } }

const corpus: CorpusEntry[] = [
  // Gmail 421 4.7.28: the scope is named in the text.
  {
    name: 'Gmail 4.7.28, IP address (multi-line, as Postfix logs it flattened)',
    reply: {
      code: 421,
      enhanced: '4.7.28',
      text: '[203.0.113.59      4] Our system has detected an unusual rate of 421-4.7.28 unsolicited mail originating from your IP address. To protect our 421-4.7.28 users from spam, mail sent from your IP address has been temporarily 421-4.7.28 rate limited. Please visit 421-4.7.28  https://support.google.com/mail/?p=UnsolicitedRateLimitError to 421 4.7.28 review our Bulk Email Senders Guidelines. z1si9679476pln.401 - gsmtp',
    },
    expected: ip,
    source: 'github.com/mail-in-a-box/mailinabox/issues/1771',
  },
  {
    name: 'Gmail 4.7.28, IP address (CRLF lines with their prefixes, no enhanced code given)',
    reply: {
      code: 421,
      text: '421-4.7.28 [203.0.113.7 15] Our system has detected an unusual rate of\r\n421-4.7.28 unsolicited mail originating from your IP address. To protect our\r\n421-4.7.28 users from spam, mail sent from your IP address has been temporarily\r\n421-4.7.28 rate limited. Please visit\r\n421-4.7.28 https://support.google.com/mail/?p=UnsolicitedRateLimitError to\r\n421 4.7.28 review our Bulk Email Senders Guidelines. 3si1234.5 - gsmtp',
    },
    expected: ip,
    source: 'talk.plesk.com/threads/421-4-7-28-error-when-sending-mail-to-google-server.361840',
  },
  {
    name: 'Gmail 4.7.0, IP address (the older code of the same text)',
    reply: {
      code: 421,
      enhanced: '4.7.0',
      text: '[216.194.173.80 15] Our system has detected an unusual rate of\n421-4.7.0 unsolicited mail originating from your IP address. To protect our\n421-4.7.0 users from spam, mail sent from your IP address has been temporarily\n421-4.7.0 rate limited. Please visit\n421-4.7.0 https://support.google.com/mail/?p=UnsolicitedRateLimitError to\n421 4.7.0 review our Bulk Email Senders Guidelines. p4si3522070uam.9 - gsmtp',
    },
    expected: ip,
    source: 'pastebin.com/6G7q8H39 (Exim log)',
  },
  {
    name: 'Gmail 4.7.0, low reputation of the sending IP',
    reply: {
      code: 421,
      enhanced: '4.7.0',
      text: 'Our system has detected that this message is 421-4.7.0 suspicious due to the very low reputation of the sending IP address. 421-4.7.0 To protect our users from spam, mail sent from your IP address has 421-4.7.0 been temporarily rate limited. Please visit 421 4.7.0 for more information.',
    },
    expected: ip,
    source: 'discuss.vultr.com/discussion/1031/gmail-is-blocking-my-email',
  },
  {
    name: 'Gmail 4.7.28, IP netblock',
    reply: {
      code: 421,
      enhanced: '4.7.28',
      text: 'Gmail has detected an unusual rate of mail originating from your IP Netblock [203.0.113.0/24]. To protect our users from spam, mail sent from your IP Netblock has been temporarily rate limited.',
    },
    expected: ip,
    source: "Google's Gmail SMTP errors and codes (support.google.com/a/answer/3726730)",
  },
  {
    name: 'Gmail 4.7.28, DKIM domain named',
    reply: {
      code: 421,
      enhanced: '4.7.28',
      text: '421-4.7.28 Gmail has detected an unusual rate of unsolicited mail\r\n421-4.7.28 originating from your DKIM domain [Tenant-A.example 15].\r\n421-4.7.28 Mail sent from your domain has been temporarily rate limited. - gsmtp',
    },
    expected: { kind: 'throttle', scope: { kind: 'dkim-domain', domain: 'tenant-a.example' } },
    source:
      'suped.com/learn/dkim/what-causes-gmail-dkim-domain-rate-limiting-errors-and-how-are-they-related-to-spf',
  },
  {
    name: 'Gmail 4.7.28, DKIM domain left blank ("[ 15]")',
    reply: {
      code: 421,
      enhanced: '4.7.28',
      text: '421-4.7.28 Gmail has detected an unusual rate of unsolicited mail originating\r\n421-4.7.28 from your DKIM domain [ 15]. To protect our users from spam,\r\n421-4.7.28 mail sent from your DKIM domain has been temporarily rate limited.',
    },
    expected: { kind: 'throttle', scope: { kind: 'dkim-domain' } },
    source:
      'suped.com/knowledge/email-deliverability/technical/what-causes-gmail-dkim-domain-rate-limiting-errors-and-how-are-they-related-to-spf (Email Geeks, 2023-11)',
  },
  {
    name: 'Gmail 4.7.28, mail signed with a DKIM domain',
    reply: {
      code: 421,
      enhanced: '4.7.28',
      text: 'Gmail has detected an unusual rate of unsolicited mail signed with DKIM domain mail.tenant-b.example. To protect our users from spam, mail has been temporarily rate limited.',
    },
    expected: { kind: 'throttle', scope: { kind: 'dkim-domain', domain: 'mail.tenant-b.example' } },
    source:
      'the form quoted in issue 28 ("signed with DKIM domain"), after bentonow.com/smtp-errors/gmail/421-4-7-28-dkim-rate-limit',
  },
  {
    name: 'Gmail 4.7.28, SPF (envelope) domain',
    reply: {
      code: 421,
      enhanced: '4.7.28',
      text: 'Gmail has detected an unusual rate of unsolicited mail originating from your SPF domain [bounces.tenant-c.example 15]. To protect our users from spam, mail sent from your SPF domain has been temporarily rate limited.',
    },
    expected: { kind: 'throttle', scope: { kind: 'envelope-domain', domain: 'bounces.tenant-c.example' } },
    source:
      "Google's Gmail SMTP errors and codes; dmarcpal.com/learn/gmail-4-7-28-throttling-sender-warm-up-dkim-spf-ip-quotas",
  },
  {
    name: 'Gmail 4.7.28, one of the URL domains (no domain named)',
    reply: {
      code: 421,
      enhanced: '4.7.28',
      text: 'Gmail has detected an unusual rate of unsolicited mail containing one of your URL domains. To protect our users from spam, mail with the URL has been temporarily rate limited.',
    },
    expected: { kind: 'throttle', scope: { kind: 'url-domain' } },
    source: 'spamresource.com/2024/04/ask-al-help-were-getting-url-blocked-at.html',
  },
  {
    name: 'Gmail 4.7.28 without a scope',
    reply: {
      code: 421,
      enhanced: '4.7.28',
      text: '421-4.7.28 Gmail has detected an unusual rate of unsolicited mail. To protect 421-4.7.28 our users from spam, mail has been temporarily rate limited. Please 421-4.7.28 visit 421-4.7.28 to 421 4.7.28 review our Bulk Email Senders Guidelines. m17-20020a67f711000000b0045d8a438106si295017vso.199 - gsmtp',
    },
    expected: { kind: 'throttle', scope: { kind: 'unknown' } },
    source: 'mail-archive.com/mailop@mailop.org/msg20199.html',
  },
  // Gmail texts that are not about our rate.
  {
    name: 'Gmail 421 4.7.26, unauthenticated (a 4xx about authentication: this message, not the pace)',
    reply: {
      code: 421,
      enhanced: '4.7.26',
      text: "Unauthenticated email from example.com is not accepted due to domain's DMARC policy. Please contact the administrator of example.com domain if this was a legitimate mail. To learn about the DMARC initiative, go to https://support.google.com/mail/?p=DmarcRejection - gsmtp",
    },
    expected: { kind: 'temporary' },
    source:
      "Google's Gmail SMTP errors and codes, via dmarctrust.com/troubleshooting/unauthenticated-email-rejected",
  },
  {
    name: 'Gmail 421 4.7.0, suspicious content (this message)',
    reply: {
      code: 421,
      enhanced: '4.7.0',
      text: '[144.217.165.242 15] Our system has detected that this message is 421-4.7.0 suspicious due to the nature of the content and/or the links within. 421-4.7.0 To best protect our users from spam, the message has been blocked. 421-4.7.0 Please visit 421 4.7.0 https://support.google.com/mail/answer/188131 for more information. x67si2021254qka.111 - gsmtp',
    },
    expected: { kind: 'temporary' },
    source: 'pastebin.com/UY4cSHKJ (Postfix log)',
  },
  {
    name: 'Gmail 450 4.2.1, one recipient receiving too fast',
    reply: {
      code: 450,
      enhanced: '4.2.1',
      text: 'The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered. Please resend your message at a later time. If the user is able to receive mail at that time, your message will be delivered. For more information, please visit https://support.google.com/mail/?p=ReceivingRate - gsmtp',
    },
    expected: { kind: 'recipient-temporary' },
    source: 'smtp.codes/450; Gmail SMTP errors and codes',
  },
  {
    name: 'Gmail 450 4.2.1, "receiving email too quickly"',
    reply: {
      code: 450,
      enhanced: '4.2.1',
      text: 'The user you are trying to contact is receiving email too quickly. Please resend your message at a later time.',
    },
    expected: { kind: 'recipient-temporary' },
    source: 'knowledge.workspace.google.com/admin/support/troubleshooting/gmail-smtp-errors-and-codes',
  },
  {
    name: 'Gmail 452 4.2.2, mailbox over quota',
    reply: {
      code: 452,
      enhanced: '4.2.2',
      text: 'The email account that you tried to reach is over quota. Please direct the recipient to https://support.google.com/mail/?p=OverQuotaTemp - gsmtp',
    },
    expected: { kind: 'recipient-temporary' },
    source: 'suped.com/knowledge/email-deliverability/troubleshooting/what-does-the-gmail-error-452-422-…',
  },
  {
    name: '452 4.2.2 with a text of its own (the code decides)',
    reply: { code: 452, enhanced: '4.2.2', text: 'Recipient unavailable, try later' },
    expected: { kind: 'recipient-temporary' },
    source: 'RFC 3463 X.2.2 "mailbox full"',
  },
  // Microsoft
  {
    name: 'Microsoft 451 4.7.650, IP reputation',
    reply: {
      code: 451,
      enhanced: '4.7.650',
      text: 'The mail server [203.0.113.10] has been temporarily rate limited due to IP reputation. For e-mail delivery information, see https://postmaster.live.com (S775) [Name=Protocol Filter Agent][AGT=PFA][MxId=11BA4F3F3E6D1B44]',
    },
    expected: ip,
    source: 'knowledge.broadcom.com/external/article/438593; issue 28',
  },
  {
    name: 'Microsoft 451 4.7.651, IP reputation (S3114)',
    reply: {
      code: 451,
      enhanced: '4.7.651',
      text: 'The mail server [203.0.113.10] has been temporarily rate limited due to IP reputation. For e-mail delivery information, see https://postmaster.live.com (S3114)',
    },
    expected: ip,
    source:
      'suped.com/email-deliverability/answers/what-causes-temporary-rate-limiting-due-to-ip-reputation-with-microsoft-email-servers',
  },
  {
    name: 'Microsoft 451 4.7.500, server busy (S77719)',
    reply: {
      code: 451,
      enhanced: '4.7.500',
      text: 'Server busy. Please try again later from [203.0.113.10]. (S77719) [BL6PEPF0001AB50.namprd04.prod.outlook.com 2024-07-14T14:44:43.083Z 08DCA36F759CD546]',
    },
    expected: ip,
    source:
      'suped.com/learn/email-deliverability/what-causes-office365-temp-fails-and-how-can-they-be-resolved',
  },
  {
    name: 'Microsoft 421 4.3.2, too many concurrent connections',
    reply: {
      code: 421,
      enhanced: '4.3.2',
      text: 'The maximum number of concurrent server connections has exceeded a per-source limit, closing transmission channel',
    },
    expected: ip,
    source: 'learn.microsoft.com/en-us/answers/questions/407670 (Exchange receive connector)',
  },
  // Yahoo
  {
    name: 'Yahoo 421 4.7.0 [TSS04]',
    reply: {
      code: 421,
      enhanced: '4.7.0',
      text: '[TSS04] Messages from 203.0.113.35 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes',
    },
    expected: ip,
    source: 'secuserve.zammad.com/help/en-us/5-f-a-q/397-deferred-yahoo-said-421-4-7-0-tss04',
  },
  {
    name: 'Yahoo 421 4.7.0 [TSS05]',
    reply: {
      code: 421,
      enhanced: '4.7.0',
      text: '[TSS05] Messages from 203.0.113.105 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes',
    },
    expected: ip,
    source: 'community.fortinet.com (Troubleshooting Tip: 421 4.7.0 TSS05)',
  },
  {
    name: 'Yahoo 421 4.7.0 [TS02], user complaints',
    reply: {
      code: 421,
      enhanced: '4.7.0',
      text: '[TS02] Messages from 72.5.230.103 temporarily deferred due to user complaints - 4.16.56.1; see http://postmaster.yahoo.com/421-ts02.html',
    },
    expected: ip,
    source: 'help.zoho.com/portal/en/community/topic/message-from-zoho-to-yahoo-elicits-421-responses',
  },
  {
    name: 'Yahoo 421 4.7.1 [TS03], "permanently deferred" (still a 4xx: slow down, do not fail)',
    reply: {
      code: 421,
      enhanced: '4.7.1',
      text: '[TS03] All messages from 203.0.113.9 permanently deferred',
    },
    expected: ip,
    source: 'help.yahoo.com/kb (SLN3436)',
  },
  {
    name: 'Yahoo 421 without enhanced code, "Message from x temporarily deferred - 4.16.50"',
    reply: { code: 421, text: 'Message from 203.0.113.9 temporarily deferred - 4.16.50' },
    expected: ip,
    source: 'smtp-error-codes.info/bounce/yahoo/bounce_421_4.16.50.php (Yahoo postmaster text)',
  },
  {
    name: 'Yahoo 554 5.7.9, policy rejection (5xx: permanent)',
    reply: {
      code: 554,
      enhanced: '5.7.9',
      text: 'Message not accepted for policy reasons. See https://postmaster.yahooinc.com/error-codes',
    },
    expected: { kind: 'permanent' },
    source: "Yahoo's SMTP error codes (senders.yahooinc.com/smtp-error-codes)",
  },
  // Apple
  {
    name: 'Apple iCloud 421 4.7.1, excessive volume',
    reply: {
      code: 421,
      enhanced: '4.7.1',
      text: 'Messages to someone@icloud.com deferred due to excessive volume. Try again later - https://support.apple.com/en-us/HT204137',
    },
    expected: ip,
    source: 'smtp.codes/icloud; bentonow.com/smtp-errors/apple/421-4-7-1-rate-limiting',
  },
  {
    name: 'Apple iCloud 451 4.7.1, service unavailable (top of the hour)',
    reply: { code: 451, enhanced: '4.7.1', text: 'Service unavailable - try again later' },
    expected: { kind: 'throttle', scope: { kind: 'unknown' } },
    source: 'smtp.codes/icloud',
  },
  {
    name: 'Apple iCloud 421 4.7.0, too many errors',
    reply: { code: 421, enhanced: '4.7.0', text: 'me.com Error: too many errors' },
    expected: { kind: 'throttle', scope: { kind: 'unknown' } },
    source: 'smtp.codes/icloud',
  },
  {
    name: 'Apple iCloud 550 5.1.1, no such user',
    reply: { code: 550, enhanced: '5.1.1', text: '<someone@icloud.com>: user does not exist' },
    expected: { kind: 'permanent' },
    source: 'smtp.codes/icloud',
  },
  // Greylisting (small domains) and other per-recipient replies
  {
    name: 'greylisting 451 4.7.1 (the throttle code, but one recipient)',
    reply: { code: 451, enhanced: '4.7.1', text: 'Greylisting in action, please come back later' },
    expected: { kind: 'recipient-temporary' },
    source: 'knowledge.broadcom.com/external/article/169944/email-securitycloud-infrastructure-is-gr.html',
  },
  {
    name: 'greylisting 451 4.7.1, Postfix postgrey',
    reply: {
      code: 451,
      enhanced: '4.7.1',
      text: '<someone@small.example>: Recipient address rejected: Greylisted, try again in 300 seconds',
    },
    expected: { kind: 'recipient-temporary' },
    source: 'simplefastwebsites.com/errors/email/smtp-451-4-7-1-greylisting-try-again-later',
  },
  {
    name: 'greylisting 450 4.2.0',
    reply: {
      code: 450,
      enhanced: '4.2.0',
      text: '<someone@small.example>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/small.example.html',
    },
    expected: { kind: 'recipient-temporary' },
    source: 'hoststud.com/resources/email-error-450-and-it’s-solution.317',
  },
  {
    name: 'greylisting 450 4.7.1, "Greylisted for 5 minutes"',
    reply: {
      code: 450,
      enhanced: '4.7.1',
      text: '<someone@small.example>: Client host rejected: Greylisted for 5 minutes',
    },
    expected: { kind: 'recipient-temporary' },
    source: 'hoststud.com/resources/email-error-450-and-it’s-solution.317',
  },
  // The plain codes
  {
    name: '550 5.1.1, no such mailbox',
    reply: {
      code: 550,
      enhanced: '5.1.1',
      text: "The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces. - gsmtp",
    },
    expected: { kind: 'permanent' },
    source: 'Gmail SMTP errors and codes',
  },
  {
    name: '550 5.7.1 unusual rate, blocked (a 5xx block fails the message, it is no rate signal)',
    reply: {
      code: 550,
      enhanced: '5.7.1',
      text: '[198.51.100.47 1] Our system has detected an unusual rate of unsolicited mail originating from your IP address. To protect our users from spam, mail sent from your IP address has been blocked.',
    },
    expected: { kind: 'permanent' },
    source: 'pastebin.com/6UPQYvjk',
  },
  {
    name: '450 4.3.2 service currently unavailable (another 4xx)',
    reply: { code: 450, enhanced: '4.3.2', text: 'Service currently unavailable' },
    expected: { kind: 'temporary' },
    source: 'hoststud.com/resources/email-error-450-and-it’s-solution.317',
  },
  {
    name: '451 without an enhanced code',
    reply: { code: 451, text: 'Temporary local problem - please try later' },
    expected: { kind: 'temporary' },
    source: 'qmail / Exim default text',
  },
  {
    name: '421 with no text at all (the server closes the channel)',
    reply: { code: 421, text: 'Service not available, closing transmission channel' },
    expected: { kind: 'throttle', scope: { kind: 'unknown' } },
    source: 'RFC 5321 §4.2.3',
  },
  {
    name: '250 accepted',
    reply: {
      code: 250,
      enhanced: '2.0.0',
      text: 'OK  1733480000 d2e1a72fcca58-7258a1c3f4bsi12345b3a.120 - gsmtp',
    },
    expected: { kind: 'accepted' },
    source: 'Gmail',
  },
  {
    name: '251 accepted (forwarded)',
    reply: { code: 251, text: 'User not local; will forward' },
    expected: { kind: 'accepted' },
    source: 'RFC 5321 §4.2.3',
  },
]

describe('classifyReply on a corpus of real provider replies', () => {
  it.each(corpus.map((entry) => [entry.name, entry] as const))('%s', (_name, entry) => {
    expect(classifyReply(entry.reply)).toEqual(entry.expected)
  })

  it('covers every class and every throttle scope it can name', () => {
    const kinds = new Set(corpus.map((entry) => entry.expected.kind))
    expect([...kinds].sort()).toEqual([
      'accepted',
      'permanent',
      'recipient-temporary',
      'temporary',
      'throttle',
    ])
    const scopes = new Set(
      corpus.flatMap((entry) => (entry.expected.kind === 'throttle' ? [entry.expected.scope.kind] : [])),
    )
    expect([...scopes].sort()).toEqual(['dkim-domain', 'envelope-domain', 'ip', 'unknown', 'url-domain'])
  })
})

describe('classifyReply edge cases', () => {
  it('reads the enhanced code from the text when the caller did not parse it', () => {
    expect(
      classifyReply({ code: 421, text: '4.7.26 Unauthenticated email from example.com is not accepted' }),
    ).toEqual({
      kind: 'temporary',
    })
    expect(classifyReply({ code: 452, text: '452 4.2.2 Recipient unavailable' })).toEqual({
      kind: 'recipient-temporary',
    })
    expect(classifyReply({ code: 451, text: '4.7.1 Please try again later' })).toEqual({
      kind: 'throttle',
      scope: { kind: 'unknown' },
    })
  })

  it('names a From-header domain and an envelope domain when the text does', () => {
    expect(
      classifyReply({
        code: 421,
        enhanced: '4.7.28',
        text: 'Unusual rate of mail from your From domain [News.Tenant.example]; temporarily rate limited',
      }),
    ).toEqual({ kind: 'throttle', scope: { kind: 'from-domain', domain: 'news.tenant.example' } })
    expect(
      classifyReply({
        code: 451,
        enhanced: '4.7.28',
        text: 'Mail with your MAIL FROM domain [bounce.tenant.example] has been temporarily rate limited',
      }),
    ).toEqual({ kind: 'throttle', scope: { kind: 'envelope-domain', domain: 'bounce.tenant.example' } })
  })

  it('does not mistake an address or a count in brackets for a domain', () => {
    expect(
      classifyReply({
        code: 421,
        enhanced: '4.7.28',
        text: 'unusual rate of unsolicited mail originating from your DKIM domain [203.0.113.4 15]',
      }),
    ).toEqual({ kind: 'throttle', scope: { kind: 'dkim-domain' } })
  })

  it('refuses a code that is not an SMTP reply code', () => {
    expect(() => classifyReply({ code: 42, text: '' })).toThrow(
      'classifyReply: 42 is not an SMTP reply code (200-599)',
    )
    expect(() => classifyReply({ code: 600, text: '' })).toThrow(RangeError)
    expect(() => classifyReply({ code: 421.5, text: '' })).toThrow(RangeError)
  })

  it('treats a 3xx as a final reply as temporary (the server lost its place in the dialogue)', () => {
    expect(classifyReply({ code: 354, text: 'Start mail input' })).toEqual({ kind: 'temporary' })
  })
})

describe('classifyConnectionFailure', () => {
  it('throttles the provider when the connection is refused or dropped before the greeting', () => {
    expect(classifyConnectionFailure('connect')).toEqual(ip)
    expect(classifyConnectionFailure('greeting')).toEqual(ip)
  })

  it('retries the message when TLS fails or the connection is lost after the greeting', () => {
    expect(classifyConnectionFailure('tls')).toEqual({ kind: 'temporary' })
    expect(classifyConnectionFailure('envelope')).toEqual({ kind: 'temporary' })
    expect(classifyConnectionFailure('data')).toEqual({ kind: 'temporary' })
  })

  it('refuses an unknown phase, naming it', () => {
    expect(() => classifyConnectionFailure('banner' as 'connect')).toThrow(
      'classifyConnectionFailure: unknown phase "banner"',
    )
  })
})
