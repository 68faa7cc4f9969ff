import { spawnSync } from 'node:child_process'
import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { dkimVerify } from 'mailauth/lib/dkim/verify'
import MailComposer from 'nodemailer/lib/mail-composer'
import { beforeAll, describe, expect, it } from 'vitest'
import { composeMessage } from '../compose/compose-message'
import { DKIM_HEADER_FIELD_NAMES } from '../dkim-signature-check'
import { dkimSign } from './dkim-sign'
import { dkimBodyHash } from './relaxed-body'
import { dkimResolver, testDkimKey } from './testing/test-key'

/**
 * Every signature this signer makes is checked by two verifiers that share no code with it or with
 * each other: mailauth (Node) and dkimpy (Debian's python3-dkim, run as a child process), over a
 * corpus of messages a signer gets wrong first: folded and 8-bit headers, 8-bit, empty and
 * blank-line-ended bodies, trailing whitespace, very long lines, bare LF and bare CR line ends,
 * multipart, non-ASCII display names, several recipients, repeated fields.
 */
const DOMAIN = 'news.signer.test'
const SELECTOR = 'fl2026sel'
const DKIMPY_SCRIPT = fileURLToPath(new URL('./dkimpy-verify.py', import.meta.url))
// Debian's interpreter, where python3-dkim installs (a python3 earlier on PATH may lack it).
const PYTHON = '/usr/bin/python3'

let privateKey: KeyObject
let record: string

beforeAll(() => {
  const key = testDkimKey()
  privateKey = key.privateKey
  record = key.record
})

const key = () => ({ domainName: DOMAIN, keySelector: SELECTOR, privateKey })
const lines = (...parts: string[]) => Buffer.from(parts.join('\r\n'), 'utf8')

async function composed(mail: ConstructorParameters<typeof MailComposer>[0]): Promise<Buffer> {
  return new MailComposer(mail).compile().build()
}

/** The corpus: name → the message as a transport would be handed it. */
async function corpus(): Promise<[string, Buffer][]> {
  const headers = [
    'From: "News" <news@news.signer.test>',
    'To: reader@example.test',
    'Subject: corpus',
    'Date: Sun, 06 Dec 2026 10:00:00 +0000',
    'Message-ID: <corpus@news.signer.test>',
    'MIME-Version: 1.0',
  ]
  const longWord = 'x'.repeat(20_000)
  return [
    [
      'a newsletter as MailComposer builds it (html and text, one-click unsubscribe)',
      await composed({
        from: '"Throughput News" <news@news.signer.test>',
        to: 'reader1@example.test',
        subject: 'Anna, your December picks from Hanoi',
        html: `<html><body>\n    <table>\n\t<tr><td>  Pho   and  more  </td></tr>\n    </table>\n${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit. </p>\n'.repeat(40)}</body></html>`,
        text: `Pho and more\n\n${'Lorem ipsum dolor sit amet. \n'.repeat(40)}`,
        headers: {
          'List-Unsubscribe': '<https://fairlane.example/u/token>',
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
          'Feedback-ID': 'c1:t1:bulk:fairlane',
        },
        messageId: '<n1@news.signer.test>',
      }),
    ],
    [
      'multipart/mixed with an attachment and an inline image',
      await composed({
        from: 'news@news.signer.test',
        to: 'reader@example.test',
        subject: 'files',
        html: '<p>see <img src="cid:logo@x"></p>',
        text: 'see attached',
        attachments: [
          { filename: 'report.pdf', content: Buffer.alloc(3000, 7), contentType: 'application/pdf' },
          { filename: 'logo.png', content: Buffer.alloc(500, 1), contentType: 'image/png', cid: 'logo@x' },
        ],
      }),
    ],
    [
      'non-ASCII display names, several To and Cc recipients (encoded words)',
      await composed({
        from: { name: 'Ngọc Anh Phạm – Café', address: 'news@news.signer.test' },
        to: [
          { name: 'Zoë Æther', address: 'zoe@example.test' },
          'plain@example.test',
          { name: 'Łukasz "Lu" Wróbel', address: 'lukasz@example.test' },
          { name: 'Renée', address: 'renee@example.test' },
        ],
        cc: ['one@example.test', 'two@example.test'],
        subject: 'Ünïcödé subject that is long enough to be folded by the composer into several lines ✓',
        text: 'Grüße aus Hà Nội',
      }),
    ],
    [
      'raw UTF-8 (8-bit) header values and an 8-bit body',
      lines(
        'From: Ngọc Anh <news@news.signer.test>',
        'To: Zoë <zoe@example.test>, "Renée Ñ" <renee@example.test>',
        // No byte 0xA0 in the header (no "à", no NBSP): see the dkimpy-only test below.
        'Subject: Grüße, bientôt — ✓',
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: 8bit',
        '',
        'Grüße aus Hà Nội — ça va? ',
        '\tÆØÅ  æøå\u00a0non-breaking',
        '',
      ),
    ],
    [
      'folded headers, tabs, runs of spaces and trailing spaces in values, an empty value',
      lines(
        'From: "News"\r\n\t<news@news.signer.test>',
        'To: a@example.test,\r\n    b@example.test,\r\n\tc@example.test',
        'Subject:   a   subject\twith \t runs   ',
        'Date: Sun, 06 Dec 2026\r\n 10:00:00 +0000',
        'Message-ID: <folded@news.signer.test>',
        'MIME-Version: 1.0',
        'Cc:',
        'Content-Type: text/plain;\r\n\tcharset=us-ascii;\r\n\tformat=flowed',
        '',
        'body',
        '',
      ),
    ],
    ['an empty body', lines(...headers, '', '')],
    ['no body at all (no empty line after the header)', lines(...headers, '')],
    ['a body of blank and whitespace-only lines', lines(...headers, '', '', '   ', '\t', '', '', '')],
    [
      'trailing whitespace, runs of spaces and tabs, blank lines at the end',
      lines(
        ...headers,
        '',
        'line with trailing spaces   ',
        'line with trailing tab\t',
        '  leading   and\t\tinner  \t runs ',
        '',
        '',
        'after two blank lines',
        '.a line starting with a dot',
        '..two dots',
        '.',
        '',
        '',
        '   ',
        '',
      ),
    ],
    ['a body without a final line end', Buffer.concat([lines(...headers, '', 'no final CRLF  ')])],
    [
      'very long lines (20,000 characters, and long lines full of spaces)',
      lines(...headers, '', longWord, `${'word   '.repeat(3000)}  `, longWord),
    ],
    [
      'bare LF line ends throughout',
      Buffer.from(`${[...headers, 'To: second@example.test'].join('\n')}\n\nline one  \nline two\n\n\n`),
    ],
    [
      'mixed line ends: CRLF header, bare LF and bare CR in the body',
      Buffer.concat([lines(...headers, '', ''), Buffer.from('lf line\nthen cr\rthen both\r\nend \r')]),
    ],
    [
      'a clean body that needs canonicalising only after blank lines, half way down',
      lines(
        ...headers,
        '',
        'clean line one',
        'clean line two',
        '',
        '',
        'then  a run',
        'and a tab\there',
        '',
        '',
      ),
    ],
    [
      'a clean CRLF body with one bare LF past its middle',
      Buffer.concat([lines(...headers, '', 'clean', 'clean too', ''), Buffer.from('bare lf\nlast\r\n')]),
    ],
    [
      'a bare LF in the header only, the body clean',
      Buffer.concat([Buffer.from('Subject: lf header\n'), lines(...headers, '', 'clean body', '')]),
    ],
    [
      'the send path composer: indented HTML and text, one-click unsubscribe',
      composeMessage({
        from: { name: 'Throughput News', address: 'news@news.signer.test' },
        replyTo: undefined,
        to: 'reader1@example.test',
        subject: 'Anna, your picks',
        messageId: '<c1@news.signer.test>',
        date: new Date('2026-12-06T10:00:00Z'),
        headers: {
          'List-Unsubscribe': '<https://fairlane.example/u/token>',
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        },
        html: `<table>\n<tr><td>\n  <p style="margin:0">Hello  Anna,</p>\n\t<p>tab</p>\n</td></tr>\n</table>\n`,
        text: 'Hello Anna,\n\nline with trailing spaces   \nend',
      }).message,
    ],
    [
      'repeated fields: the last of each name is signed',
      lines(
        'From: news@news.signer.test',
        'Reply-To: first@example.test',
        'To: reader@example.test',
        'Subject: first subject',
        'Reply-To: second@example.test',
        'Subject: second subject',
        '',
        'body',
        '',
      ),
    ],
  ]
}

async function verifyWithMailauth(message: Buffer) {
  const { results } = await dkimVerify(message, {
    resolver: dkimResolver({ selector: SELECTOR, domain: DOMAIN, record: () => record }),
  })
  return results
}

function verifyWithDkimpy(messages: Buffer[]): { ok: boolean; error: string | null }[] {
  const run = spawnSync(PYTHON, [DKIMPY_SCRIPT], {
    input: JSON.stringify({ record, messages: messages.map((message) => message.toString('base64')) }),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
  if (run.error || run.status !== 0) {
    throw new Error(
      `dkimpy could not run (${PYTHON} with Debian's python3-dkim: apt-get install -y python3-dkim): ${run.error?.message ?? run.stderr}`,
    )
  }
  return JSON.parse(run.stdout) as { ok: boolean; error: string | null }[]
}

describe('dkimSign', () => {
  it('makes signatures that mailauth and dkimpy both verify, over the whole corpus', async () => {
    const entries = await corpus()
    const signed = entries.map(([, message]) => dkimSign(message, key()))
    const dkimpy = verifyWithDkimpy(signed)
    const failures: string[] = []
    for (const [index, [name]] of entries.entries()) {
      const message = signed[index] as Buffer
      const [mailauth, ...more] = await verifyWithMailauth(message)
      if (more.length > 0 || mailauth?.status.result !== 'pass' || mailauth.signingDomain !== DOMAIN) {
        failures.push(`${name}: mailauth ${mailauth?.status.result} ${JSON.stringify(mailauth?.status)}`)
      }
      if (!dkimpy[index]?.ok) failures.push(`${name}: dkimpy failed ${dkimpy[index]?.error ?? ''}`)
    }
    expect(failures).toEqual([])
    expect(signed).toHaveLength(entries.length)
    // dkimpy runs as a Python process over the whole corpus: on a shared 2-core machine (load 20)
    // this took 5.3 s and timed out at vitest's default 5 s.
  }, 30_000)

  it('is checked for real: both verifiers fail a signed message changed by one body byte or one signed field', async () => {
    const signed = dkimSign((await corpus())[0]?.[1] as Buffer, key())
    const body = Buffer.from(signed)
    body[body.length - 5] = 0x21
    const field = Buffer.from(signed.toString('latin1').replace('Subject: Anna', 'Subject: Anne'), 'latin1')
    for (const changed of [body, field]) {
      // mailauth answers neutral for a body hash that does not match, fail for a bad signature.
      expect((await verifyWithMailauth(changed))[0]?.status.result).toMatch(/^(neutral|fail)$/)
    }
    expect(verifyWithDkimpy([body, field]).map((result) => result.ok)).toEqual([false, false])
  })

  it('signs 8-bit header bytes as they are, 0xA0 included (dkimpy; mailauth reads 0xA0 as a space)', () => {
    // RFC 6376 §2.8: only SP and HTAB are whitespace. "à" is C3 A0 in UTF-8; mailauth's relaxed
    // header (a \s+ over the latin1 text) turns that A0 into a space, so it fails such a message,
    // signed by nodemailer's signer or ours alike. dkimpy follows the RFC; so does this signer.
    const message = lines(
      'From: Zoé à Hà Nội <news@news.signer.test>',
      'To: reader@example.test',
      'Subject: à bientôt\u00a0!',
      '',
      'body',
      '',
    )
    expect(message.includes(0xa0)).toBe(true)
    expect(verifyWithDkimpy([dkimSign(message, key())])).toEqual([{ ok: true, error: null }])
  })

  it('adds what the receiver will have anyway: the empty line after a bare header, the last CRLF', () => {
    const headerOnly = dkimSign(Buffer.from('From: a@news.signer.test\r\nSubject: s'), key()).toString()
    expect(headerOnly.endsWith('\r\nFrom: a@news.signer.test\r\nSubject: s\r\n\r\n')).toBe(true)
    const unended = dkimSign(Buffer.from('From: a@news.signer.test\r\n\r\nlast  '), key()).toString()
    expect(unended.endsWith('\r\n\r\nlast  \r\n')).toBe(true)
  })

  it('answers the message with CRLF line ends, the signature header first, and nothing else changed', async () => {
    const original = Buffer.from('From: a@news.signer.test\nTo: b@example.test\n\nbody\rmore\n')
    const signed = dkimSign(original, key())
    const text = signed.toString('latin1')
    expect(text.startsWith('DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=news.signer.test;')).toBe(
      true,
    )
    const start = text.indexOf('\r\nFrom:') + 2
    expect(text.slice(start)).toBe('From: a@news.signer.test\r\nTo: b@example.test\r\n\r\nbody\r\nmore\r\n')
    // No bare line end anywhere, and every folded line within 78 characters.
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/)
    for (const line of text.slice(0, start).split('\r\n')) expect(line.length).toBeLessThanOrEqual(78)
    // A message already in CRLF is sent as it is, after the signature.
    const crlf = Buffer.from('From: a@news.signer.test\r\n\r\nbody\r\n')
    expect(dkimSign(crlf, key()).subarray(-crlf.length).equals(crlf)).toBe(true)
  })

  it('signs the listed fields the message has, in the list order, with no t= (as nodemailer signed)', () => {
    const message = lines(
      'Subject: s',
      'X-Not-Listed: x',
      'From: a@news.signer.test',
      'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
      'List-Unsubscribe: <https://u.test/x>',
      'To: b@example.test',
      '',
      'body',
    )
    const header =
      dkimSign(message, key())
        .toString('latin1')
        .split(/\r\n(?![ \t])/)[0] ?? ''
    const tags = Object.fromEntries(
      header
        .slice('DKIM-Signature:'.length)
        .replace(/\r\n[ \t]/g, '')
        .split(';')
        .map((tag) => tag.trim().split('=') as [string, string]),
    )
    expect(tags.h?.replace(/\s/g, '')).toBe('from:subject:to:list-unsubscribe:list-unsubscribe-post')
    expect(Object.keys(tags)).toEqual(['v', 'a', 'c', 'd', 'q', 's', 'bh', 'h', 'b'])
    expect(DKIM_HEADER_FIELD_NAMES.toLowerCase()).toContain('list-unsubscribe-post')
    // Another list, as a caller may pass.
    const own = dkimSign(message, key(), { headerFieldNames: 'To:From:X-Not-Listed:Missing' }).toString()
    expect(own.replace(/\r\n[ \t]/g, '')).toContain('h=to:from:x-not-listed;')
  })

  it('uses a body hash the caller computed once, to the byte the same message', async () => {
    const message = (await corpus())[0]?.[1] as Buffer
    const body = message.subarray(message.indexOf('\r\n\r\n') + 4)
    const bodyHash = dkimBodyHash(body)
    expect(dkimSign(message, key(), { bodyHash }).equals(dkimSign(message, key()))).toBe(true)
  })

  it('refuses, naming the problem, a key that is not an RSA private key, a bad domain or selector, no From', () => {
    const message = lines('From: a@news.signer.test', '', 'body')
    const ed25519 = generateKeyPairSync('ed25519').privateKey
    expect(() => dkimSign(message, { ...key(), privateKey: ed25519 })).toThrow(
      /needs an RSA private key; the key for news.signer.test is a ed25519 private key/,
    )
    const rsaPublic = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey
    expect(() => dkimSign(message, { ...key(), privateKey: rsaPublic })).toThrow(/rsa public key/)
    expect(() => dkimSign(message, { ...key(), domainName: 'news; d=evil.test' })).toThrow(
      /signing domain "news; d=evil.test" is not a domain name/,
    )
    expect(() => dkimSign(message, { ...key(), keySelector: 'sel; h=' })).toThrow(/selector "sel; h=" is not/)
    expect(() => dkimSign(lines('To: b@example.test', '', 'body'), key())).toThrow(/has no From field/)
    expect(() => dkimSign(message, key(), { headerFieldNames: 'To:Subject' })).toThrow(
      /fields to sign \(To:Subject\) do not include From/,
    )
  })
})

describe('dkimBodyHash', () => {
  const sha256 = (text: string) => createHash('sha256').update(text, 'latin1').digest('base64')

  it('hashes the relaxed body of RFC 6376 §3.4.4', () => {
    // An empty body, and one of blank lines only, canonicalise to nothing.
    expect(dkimBodyHash(Buffer.alloc(0))).toBe('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=')
    expect(dkimBodyHash(Buffer.from('\r\n \r\n\t\r\n'))).toBe(sha256(''))
    // RFC 6376 §3.4.6's example body, relaxed.
    expect(dkimBodyHash(Buffer.from(' C \r\nD \t E\r\n\r\n\r\n'))).toBe(sha256(' C\r\nD E\r\n'))
    expect(dkimBodyHash(Buffer.from('no line end'))).toBe(sha256('no line end\r\n'))
    expect(dkimBodyHash(Buffer.from('a\r\n\r\n\r\nb'))).toBe(sha256('a\r\n\r\n\r\nb\r\n'))
  })

  it('reads bare LF and bare CR as line ends, as the SMTP transport writes them', () => {
    expect(dkimBodyHash(Buffer.from('a  \nb\rc\r\n\n'))).toBe(sha256('a\r\nb\r\nc\r\n'))
    expect(dkimBodyHash(Buffer.from('a\r\r\nb'))).toBe(sha256('a\r\n\r\nb\r\n'))
  })

  it('keeps 8-bit bytes, including latin1 0xA0 (not whitespace in DKIM), as they are', () => {
    const body = Buffer.from('Grüße\u00a0 \r\n', 'utf8')
    const expected = createHash('sha256')
      .update(Buffer.concat([Buffer.from('Grüße\u00a0', 'utf8'), Buffer.from('\r\n')]))
      .digest('base64')
    expect(dkimBodyHash(body)).toBe(expected)
  })

  it('answers what RFC 6376 §3.4.4 read literally answers, over 3,000 random bodies of awkward bytes', () => {
    // The literal reading: split into lines at CRLF, bare LF or bare CR; collapse SP/HTAB runs; drop
    // them at line ends; drop empty lines at the end; end every line with CRLF.
    const reference = (body: string) => {
      const bodyLines = body.split(/\r\n|\n|\r/)
      if (bodyLines.at(-1) === '') bodyLines.pop()
      const relaxed = bodyLines.map((line) => line.replace(/[ \t]+/g, ' ').replace(/ $/, ''))
      while (relaxed.at(-1) === '') relaxed.pop()
      return relaxed.map((line) => `${line}\r\n`).join('')
    }
    // Clean lines first, then awkward ones: the hash's no-copy start hands over to its rewriting loop.
    const pieces = ['ab', 'c', ' ', '  ', '\t', '\r\n', '\r\n', '\r\n', '\n', '\r', '\u00a0', '.', 'é']
    let seed = 7
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % below
    }
    for (let run = 0; run < 3000; run++) {
      let body = run % 2 === 0 ? 'clean line\r\n\r\nanother\r\n'.repeat(random(3)) : ''
      const length = random(24)
      for (let i = 0; i < length; i++) body += pieces[random(pieces.length)]
      expect(dkimBodyHash(Buffer.from(body, 'latin1')), JSON.stringify(body)).toBe(sha256(reference(body)))
    }
  })

  it('handles bodies larger than its scratch buffer', () => {
    const big = 'y'.repeat(100_000)
    expect(dkimBodyHash(Buffer.from(`${big}\n`))).toBe(sha256(`${big}\r\n`))
  })
})
