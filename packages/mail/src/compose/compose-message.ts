import { randomBytes } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { encodeTextBody } from './body-encoding'
import { type HeaderValue, headerDate, headerLine } from './header-lines'

/** A message without attachments, as the send path composes it: one recipient, text and/or HTML. */
export interface ComposeInput {
  from: HeaderValue
  replyTo?: string | undefined
  to: string
  subject: string
  /** The full Message-ID header value, angle brackets included. */
  messageId: string
  date: Date
  /** Further header fields (List-Unsubscribe, Auto-Submitted…), after the identity headers. */
  headers: Record<string, string>
  html?: string | undefined
  text?: string | undefined
}

/**
 * The message as one buffer, ready for the socket, and where its body starts: the DKIM body hash
 * reads `message.subarray(bodyOffset)` without a copy.
 */
export interface ComposedMessage {
  message: Buffer
  bodyOffset: number
}

/**
 * What every message from one sender shares, built once and kept: the From and Reply-To lines
 * (address parsing, punycode, encoded display names), the multipart boundary, the MIME-Version and
 * Content-Type lines and each part's headers. Keyed by what it is built from, so a sender's edited
 * name gets a new one and every campaign and API mail of one sender shares one.
 */
interface MessageSkeleton {
  /** `From:` (and `Reply-To:`) lines, CRLF-terminated. */
  identity: string
  /** MIME-Version and the multipart/alternative Content-Type, CRLF-terminated. */
  alternativeHead: string
  /** `--boundary` CRLF, the text part's headers, blank line: per transfer encoding. */
  parts: Map<string, Buffer>
  /** CRLF `--boundary--` CRLF: after the last part. */
  closing: Buffer
  boundary: string
}

const skeletons = new LRUCache<string, MessageSkeleton>({ max: 500 })

const CRLF = Buffer.from('\r\n')

/** The fields the composer writes itself; `headers` cannot add a second one. */
const OWN_FIELDS = new Set([
  'from',
  'reply-to',
  'to',
  'subject',
  'message-id',
  'date',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
])

/**
 * Composes a message with text and/or HTML the way nodemailer's MailComposer would (the same
 * headers, encodings and multipart/alternative structure; mailparser reads both alike), as one
 * buffer. Per message only what varies is encoded: To, Subject, Message-ID, Date, the extra headers
 * and the bodies. Neither text nor HTML: an empty text/plain body, as nodemailer sends. A lone CR
 * in a body is a line break here (nodemailer drops it).
 */
export function composeMessage(input: ComposeInput): ComposedMessage {
  const skeleton = skeletonFor(input.from, input.replyTo)
  let head = skeleton.identity
  head += `${headerLine('To', input.to)}\r\n`
  head += `${headerLine('Subject', input.subject)}\r\n`
  head += `${headerLine('Message-ID', input.messageId)}\r\n`
  head += `Date: ${headerDate(input.date)}\r\n`
  for (const [key, value] of Object.entries(input.headers)) {
    // As in nodemailer, the message's own fields win over an extra header of the same name.
    if (!OWN_FIELDS.has(key.toLowerCase())) head += `${headerLine(key, value)}\r\n`
  }

  // nodemailer leaves out an empty text (and an empty HTML) altogether.
  const text = input.text ? encodeTextBody(input.text) : undefined
  const html = input.html ? encodeTextBody(input.html) : undefined
  if (text && html) {
    const head2 = Buffer.from(`${head}${skeleton.alternativeHead}\r\n`)
    const message = Buffer.concat([
      head2,
      partHead(skeleton, 'text/plain', text.transferEncoding),
      text.bytes,
      CRLF,
      partHead(skeleton, 'text/html', html.transferEncoding),
      html.bytes,
      skeleton.closing,
    ])
    return { message, bodyOffset: head2.length }
  }
  const single = html ?? text
  head += `MIME-Version: 1.0\r\nContent-Type: ${html ? 'text/html' : 'text/plain'}; charset=utf-8\r\n`
  if (single === undefined) {
    const empty = Buffer.from(`${head}\r\n`)
    return { message: empty, bodyOffset: empty.length }
  }
  head += `Content-Transfer-Encoding: ${single.transferEncoding}\r\n\r\n`
  const headBytes = Buffer.from(head)
  // The message ends with a line break; the body's own counts (as nodemailer's LastNewline has it).
  const parts = single.bytes.at(-1) === 0x0a ? [headBytes, single.bytes] : [headBytes, single.bytes, CRLF]
  return { message: Buffer.concat(parts), bodyOffset: headBytes.length }
}

function skeletonFor(from: HeaderValue, replyTo: string | undefined): MessageSkeleton {
  const key =
    typeof from === 'string'
      ? `${from}\n${replyTo ?? ''}`
      : `${from.name}\n${from.address}\n${replyTo ?? ''}\n`
  let skeleton = skeletons.get(key)
  if (skeleton === undefined) {
    skeleton = buildSkeleton(from, replyTo)
    skeletons.set(key, skeleton)
  }
  return skeleton
}

function buildSkeleton(from: HeaderValue, replyTo: string | undefined): MessageSkeleton {
  // `=_` cannot occur in quoted-printable or base64, and the random part not in 7bit text by chance.
  const boundary = `=_fl-${randomBytes(12).toString('hex')}`
  let identity = `${headerLine('From', from)}\r\n`
  if (replyTo !== undefined) identity += `${headerLine('Reply-To', replyTo)}\r\n`
  return {
    identity,
    alternativeHead: `MIME-Version: 1.0\r\nContent-Type: multipart/alternative;\r\n boundary="${boundary}"\r\n`,
    parts: new Map(),
    closing: Buffer.from(`\r\n--${boundary}--\r\n`),
    boundary,
  }
}

/** A part's delimiter and headers (the first part's delimiter follows the head's blank line). */
function partHead(skeleton: MessageSkeleton, type: string, transferEncoding: string): Buffer {
  const key = `${type} ${transferEncoding}`
  let bytes = skeleton.parts.get(key)
  if (bytes === undefined) {
    bytes = Buffer.from(
      `--${skeleton.boundary}\r\nContent-Type: ${type}; charset=utf-8\r\n` +
        `Content-Transfer-Encoding: ${transferEncoding}\r\n\r\n`,
    )
    skeleton.parts.set(key, bytes)
  }
  return bytes
}
