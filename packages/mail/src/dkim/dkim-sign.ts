import { type KeyObject, sign } from 'node:crypto'
import { domainToASCII } from 'node:url'
import { DKIM_HEADER_FIELD_NAMES } from '../dkim-signature-check'
import { asReceived } from './line-ends'
import { dkimBodyHash } from './relaxed-body'
import { headerFields, relaxedField, signedHeaders } from './relaxed-header'

export interface DkimKey {
  /** `d=`: the signing domain (an IDN is signed in its ASCII form). */
  domainName: string
  /** `s=`: the selector the public key is published under. */
  keySelector: string
  /** RSA, parsed once per domain (`SenderSigner`): parsing a PEM per message costs more than signing. */
  privateKey: KeyObject
}

export interface DkimSignOptions {
  /** The fields to sign, colon-separated; default `DKIM_HEADER_FIELD_NAMES`. */
  headerFieldNames?: string
  /** `dkimBodyHash` of this message's body, when the caller hashed it once for many messages. */
  bodyHash?: string
}

/** Folded lines of the DKIM-Signature header stay within this many characters. */
const LINE_LENGTH = 78

/**
 * The message with a `DKIM-Signature` header prepended: rsa-sha256, relaxed/relaxed, over the fields
 * `headerFieldNames` lists that the message has (the last of each name), no `t=`, `x=` or `l=` (as
 * nodemailer's signer, which this replaces, signed). `message` is the whole message, header block,
 * empty line and body; it is first made what the receiver will have (`asReceived`: CRLF line ends,
 * a final CRLF, the empty line after the header), and the answer is that message, so the signature
 * covers exactly the bytes that arrive.
 *
 * Synchronous and all in memory: the cost is the RSA operation plus one pass over the body (none with
 * `bodyHash`). Throws, naming what is wrong, for a key that is not an RSA private key, a domain or
 * selector that cannot be a DNS label, or a message without a From field; nothing is returned unsigned.
 */
export function dkimSign(message: Buffer, key: DkimKey, options: DkimSignOptions = {}): Buffer {
  const { privateKey } = key
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'rsa') {
    throw new Error(
      `DKIM rsa-sha256 needs an RSA private key; the key for ${key.domainName} is a ${privateKey.asymmetricKeyType ?? 'symmetric'} ${privateKey.type} key`,
    )
  }
  const domain = signingDomain(key.domainName)
  const selector = signingSelector(key.keySelector)
  const wire = asReceived(message)
  const { headerBlock, bodyStart } = splitMessage(wire)
  const bodyHash = options.bodyHash ?? dkimBodyHash(wire.subarray(bodyStart))
  const names = fieldNameList(options.headerFieldNames ?? DKIM_HEADER_FIELD_NAMES)
  const signed = signedHeaders(headerFields(headerBlock.toString('latin1')), names)
  // RFC 6376 §5.4: From must be signed; verifiers (dkimpy among them) reject a signature without it.
  if (!signed.names.split(':').includes('from')) {
    throw new Error(
      names.includes('from')
        ? 'the message has no From field for its DKIM signature to cover'
        : `the header fields to sign (${options.headerFieldNames}) do not include From`,
    )
  }
  const unsignedHeader = foldedHeader([
    'v=1',
    'a=rsa-sha256',
    'c=relaxed/relaxed',
    `d=${domain}`,
    'q=dns/txt',
    `s=${selector}`,
    `bh=${bodyHash}`,
    `h=${signed.names}`,
    'b=',
  ])
  // The signature header takes part in its own hash with an empty b= and no CRLF (RFC 6376 §3.7).
  const hashed = signed.canonical + relaxedField({ name: 'dkim-signature', text: unsignedHeader })
  const signature = sign('sha256', Buffer.from(hashed, 'latin1'), privateKey).toString('base64')
  const header = `${unsignedHeader}${foldedBase64(signature, lastLineLength(unsignedHeader))}\r\n`
  return Buffer.concat([Buffer.from(header, 'latin1'), wire])
}

/** The header block with its last CRLF, and where the body starts (`asReceived` wrote the empty line). */
function splitMessage(wire: Buffer): { headerBlock: Buffer; bodyStart: number } {
  // A message that opens with its empty line has no header fields.
  if (wire[0] === 0x0d && wire[1] === 0x0a) return { headerBlock: wire.subarray(0, 0), bodyStart: 2 }
  const end = wire.indexOf('\r\n\r\n')
  return { headerBlock: wire.subarray(0, end + 2), bodyStart: end + 4 }
}

const fieldNameLists = new Map<string, readonly string[]>()

/** `From:Subject:…` as lowercased names, each once; parsed once per distinct list. */
function fieldNameList(headerFieldNames: string): readonly string[] {
  let names = fieldNameLists.get(headerFieldNames)
  if (!names) {
    const parsed = headerFieldNames
      .split(':')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== '')
    names = [...new Set(parsed)]
    // Callers pass one of a few constant lists; the bound only guards against a caller that does not.
    if (fieldNameLists.size >= 64) fieldNameLists.clear()
    fieldNameLists.set(headerFieldNames, names)
  }
  return names
}

function signingDomain(domainName: string): string {
  const ascii = domainToASCII(domainName.trim().replace(/\.$/, ''))
  if (!/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i.test(ascii)) {
    throw new Error(`the DKIM signing domain "${domainName}" is not a domain name`)
  }
  return ascii
}

function signingSelector(keySelector: string): string {
  if (!/^[a-z0-9_](?:[a-z0-9_-]*)(?:\.[a-z0-9_](?:[a-z0-9_-]*))*$/i.test(keySelector)) {
    throw new Error(`the DKIM selector "${keySelector}" is not a DNS label`)
  }
  return keySelector
}

/**
 * `DKIM-Signature: tag; tag; …` folded before a tag (or after a colon of h=, where RFC 6376 allows
 * folding whitespace) so no line passes `LINE_LENGTH`.
 */
function foldedHeader(tags: readonly string[]): string {
  let header = 'DKIM-Signature:'
  let lineLength = header.length
  tags.forEach((tag, index) => {
    const pieces = tag.startsWith('h=') ? tag.split(/(?<=:)/) : [tag]
    pieces.forEach((piece, pieceIndex) => {
      const endsTag = pieceIndex === pieces.length - 1 && index < tags.length - 1
      const text = endsTag ? `${piece};` : piece
      const space = pieceIndex === 0 ? ' ' : ''
      if (lineLength + space.length + text.length > LINE_LENGTH && lineLength > 1) {
        header += '\r\n '
        lineLength = 1
      } else {
        header += space
        lineLength += space.length
      }
      header += text
      lineLength += text.length
    })
  })
  return header
}

/** The signature after `b=`, folded into lines of at most `LINE_LENGTH` (folding whitespace is allowed in b=). */
function foldedBase64(signature: string, used: number): string {
  let out = ''
  let at = 0
  let room = Math.max(0, LINE_LENGTH - used)
  while (at < signature.length) {
    if (room === 0) {
      out += '\r\n '
      room = LINE_LENGTH - 1
    }
    out += signature.slice(at, at + room)
    at += room
    room = 0
  }
  return out
}

function lastLineLength(header: string): number {
  const fold = header.lastIndexOf('\r\n')
  return fold === -1 ? header.length : header.length - fold - 2
}
