import { type AddressObject, type ParsedMail, simpleParser } from 'mailparser'
import MailComposer from 'nodemailer/lib/mail-composer'
import { describe, expect, it } from 'vitest'
import { type ComposeInput, composeMessage } from './compose-message'

const base: ComposeInput = {
  from: { name: 'Northwind Outfitters', address: 'news@northwind.test' },
  to: 'jane@example.com',
  subject: 'Jane, your December picks',
  messageId: '<0193b7e2-1b5c-7a4e-9c1d-1f2e3d4c5b6a@mail.fairlane.test>',
  date: new Date('2026-12-06T21:31:32Z'),
  headers: {
    'List-Unsubscribe': '<https://app.fairlane.test/u/eyJ0IjoiYWJjIn0.c2lnbmF0dXJl>',
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  },
  html: '<p>Hello Jane,</p>\n<p>Here is what is new.</p>',
  text: 'Hello Jane,\n\nHere is what is new.\n\n--\nUnsubscribe: https://app.fairlane.test/u/x\n',
}

const longLine = `<table role="presentation" width="600" style="background:#fff">${'<td style="padding:16px 24px">cell</td>'.repeat(40)}</table>`

/** Awkward inputs: each one overrides part of `base`. */
const corpus: Record<string, Partial<ComposeInput>> = {
  plain: {},
  'non-ASCII subject and display name': {
    from: { name: 'Café Ünïcode, "Ltd"', address: 'news@cafe.test' },
    subject: 'Hà Nội: Grüße aus Köln — 20 % off, ends 🎄 Sunday',
  },
  'a display name with specials only': { from: { name: 'Acme, "Inc" (EU)', address: 'a@acme.test' } },
  'a From given as a string': { from: 'Plain Sender <plain@sender.test>' },
  'a Reply-To': { replyTo: 'Support Team <support@acme.test>' },
  'a long ASCII subject': { subject: `Your order ${'and more '.repeat(20)}is on its way` },
  'a long non-ASCII subject': { subject: `Ihre Bestellung ${'über Größe '.repeat(12)}ist unterwegs` },
  'long lines in HTML': { html: longLine, text: 'short' },
  'long lines in text': { text: `${'word '.repeat(60)}\nnext line\n` },
  'empty text (HTML only)': { text: '' },
  'no HTML (text only)': { html: undefined },
  'neither text nor HTML': { html: undefined, text: undefined },
  'non-ASCII bodies': {
    html: '<p>Grüße, Jane! Ihr Rabatt: 20 €. 日本語のテキスト。Ελληνικά.</p>',
    text: 'Grüße, Jane!\nIhr Rabatt: 20 €\n',
  },
  'mostly non-Latin bodies (base64)': {
    html: '<p>日本語のテキストです。これは長いテキストです。</p>',
    text: 'Привет, мир! Это длинный текст на русском языке.',
  },
  'trailing whitespace and equals signs': {
    html: '<p style="a=b">x = y   \n\tend\t\n</p>  ',
    text: 'a = b \nc\t\n  ',
  },
  'CRLF line breaks': { text: 'one\r\ntwo\r\nthree\nfour' },
  'a dot at the start of a line': { text: '.\n..hidden\n.', html: '<p>\n.\n</p>' },
  'tracking links and a pixel': {
    html:
      '<p><a href="https://app.fairlane.test/t/c/eyJtIjoiMDE5M2I3ZTIiLCJsIjo0Mn0.' +
      'bG9uZ3NpZ25hdHVyZWxvbmdzaWduYXR1cmVsb25nc2lnbmF0dXJl">Read more</a></p>' +
      '<img src="https://app.fairlane.test/t/o/eyJtIjoiMDE5M2I3ZTIifQ.c2ln" width="1" height="1" alt="" />',
  },
  'unicode attribute values in the template': {
    html: '<p title="Zürich — “quoted”">Hello Zoë</p><a href="https://shop.test/ß?q=é">ß</a>',
  },
  'an emoji split across the QP line limit': { html: `${'a'.repeat(74)}🎄${'b'.repeat(80)}` },
  'a non-ASCII unsubscribe header value': { headers: { 'X-Campaign': 'Déjà vu' } },
  'a header value with a line break': { headers: { 'X-Note': 'one\r\nBcc: evil@x.test' } },
  'an address with an international domain': { to: 'jane@bücher.example' },
  'an address with specials in its local part': { to: "o'brien+news/x@Example.COM" },
  'an address that is no dot-atom': { to: 'jane..doe.@example.com' },
  'an address with a display name': { to: 'Jane Doe <jane@example.com>' },
  'an Auto-Submitted API mail': { headers: { 'Auto-Submitted': 'auto-generated' } },
  'extra headers named like the message own fields': {
    headers: { subject: 'not this one', 'Message-ID': '<other@x.test>', 'X-Kept': 'yes' },
  },
}

async function nodemailerBytes(input: ComposeInput): Promise<Buffer> {
  return new MailComposer({
    from: input.from,
    ...(input.replyTo === undefined ? {} : { replyTo: input.replyTo }),
    to: input.to,
    subject: input.subject,
    html: input.html,
    text: input.text,
    messageId: input.messageId,
    date: input.date,
    headers: input.headers,
  })
    .compile()
    .build()
}

function addresses(value: AddressObject | AddressObject[] | undefined) {
  return [value ?? []]
    .flat()
    .flatMap((object) => object.value.map(({ name, address }) => ({ name, address })))
}

/** What a reader sees of a message: the fields mailparser gives, and every header but the boundary's. */
function seen(mail: ParsedMail) {
  const headers = Object.fromEntries(
    [...mail.headers]
      .filter(([key]) => key !== 'content-type')
      .map(([key, value]) => [key, JSON.stringify(value)]),
  )
  return {
    subject: mail.subject,
    from: addresses(mail.from),
    to: addresses(mail.to),
    replyTo: addresses(mail.replyTo),
    messageId: mail.messageId,
    date: mail.date?.toISOString(),
    html: mail.html,
    text: mail.text,
    contentType: (mail.headers.get('content-type') as { value: string }).value,
    headers,
  }
}

/** RFC 5322 line rules: CRLF only, no line over 998 characters, header lines folded at 78. */
function expectWellFormed(message: Buffer, bodyOffset: number) {
  const text = message.toString('latin1')
  expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/)
  const headLines = text.slice(0, bodyOffset).split('\r\n')
  for (const line of headLines) expect(line.length).toBeLessThanOrEqual(78)
  for (const line of text.split('\r\n')) expect(line.length).toBeLessThanOrEqual(998)
  expect(text.slice(bodyOffset - 4, bodyOffset)).toBe('\r\n\r\n')
  expect(text.endsWith('\r\n')).toBe(true)
  for (const byte of message) expect(byte).toBeLessThan(0x80)
}

describe('composeMessage', () => {
  for (const [name, override] of Object.entries(corpus)) {
    it(`reads as nodemailer's message reads: ${name}`, async () => {
      const input = { ...base, ...override }
      const { message, bodyOffset } = composeMessage(input)
      expectWellFormed(message, bodyOffset)
      const ours = seen(await simpleParser(message))
      const theirs = seen(await simpleParser(await nodemailerBytes(input)))
      expect(ours).toEqual(theirs)
    })
  }

  it('keeps the body where bodyOffset says, after the header block', () => {
    const { message, bodyOffset } = composeMessage(base)
    const head = message.subarray(0, bodyOffset).toString()
    expect(head).toMatch(/^From: Northwind Outfitters <news@northwind\.test>\r\n/)
    expect(head).toContain('\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n')
    expect(message.subarray(bodyOffset).toString()).toMatch(
      /^--=_fl-[0-9a-f]{24}\r\nContent-Type: text\/plain/,
    )
  })

  it('shares one boundary per sender and gives another sender its own', () => {
    const boundary = (input: ComposeInput) =>
      /boundary="([^"]+)"/.exec(composeMessage(input).message.toString())?.[1]
    const first = boundary(base)
    expect(first).toBeDefined()
    expect(boundary({ ...base, to: 'other@example.com', subject: 'Other' })).toBe(first)
    expect(boundary({ ...base, from: { name: 'Renamed', address: 'news@northwind.test' } })).not.toBe(first)
  })

  it('reads a lone CR in a body as a line break (nodemailer drops it)', async () => {
    const { message } = composeMessage({ ...base, text: 'one\rtwo' })
    expect((await simpleParser(message)).text).toBe('one\ntwo')
  })

  it('keeps a value from adding a header: a line break in it becomes a space', async () => {
    const { message } = composeMessage({ ...base, subject: 'Hi\r\nBcc: evil@x.test' })
    const parsed = await simpleParser(message)
    expect(parsed.bcc).toBeUndefined()
    expect(parsed.subject).toBe('Hi Bcc: evil@x.test')
  })
})
