import { type KeyObject, sign } from 'node:crypto'
import { domainToASCII } from 'node:url'
import { DKIM_HEADER_FIELD_NAMES } from '../dkim-signature-check'
import { asReceived, hasBareLineEnd } from './line-ends'
import { dkimBodyHash, relaxedBodyHash } from './relaxed-body'
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
  const { domain, selector } = signingIdentity(key)
  const { wire, headerBlock, bodyHash } = prepare(message, options.bodyHash)
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
  const template = signatureTemplate(domain, selector, signed.names, bodyHash.length)
  const unsignedHeader = template.header.join(bodyHash)
  // The signature header takes part in its own hash with an empty b= and no CRLF (RFC 6376 §3.7).
  const hashed = signed.canonical + template.relaxed.join(bodyHash)
  const signature = sign('sha256', Buffer.from(hashed, 'latin1'), privateKey).toString('base64')
  const header = `${unsignedHeader}${foldedBase64(signature, template.lastLineLength)}\r\n`
  // One allocation and one copy of the message, the header written straight into it.
  const out = Buffer.allocUnsafe(header.length + wire.length)
  out.write(header, 0, 'latin1')
  wire.copy(out, header.length)
  return out
}

interface Prepared {
  /** The message as the receiver will have it (`asReceived`). */
  wire: Buffer
  /** Its header block with its last CRLF. */
  headerBlock: Buffer
  bodyHash: string
}

/**
 * The message made what the receiver will have, split, and its body hashed, in one pass over the
 * body when its line ends are CRLF already (what the composers write): the pass that hashes it also
 * finds any bare line end, and only then is the message rewritten (`asReceived`) and split again.
 */
function prepare(message: Buffer, bodyHash: string | undefined): Prepared {
  const split = splitMessage(message)
  if (split !== undefined && !hasBareLineEnd(split.headerBlock)) {
    const body = message.subarray(split.bodyStart)
    if (bodyHash === undefined) {
      const hashed = relaxedBodyHash(body)
      if (!hashed.bareLineEnd) {
        return {
          wire: withFinalCrlf(message, body),
          headerBlock: split.headerBlock,
          bodyHash: hashed.bodyHash,
        }
      }
    } else if (!hasBareLineEnd(body)) {
      return { wire: withFinalCrlf(message, body), headerBlock: split.headerBlock, bodyHash }
    }
  }
  const wire = asReceived(message)
  // asReceived wrote the empty line after the header block: the split is there.
  const { headerBlock, bodyStart } = splitMessage(wire) as { headerBlock: Buffer; bodyStart: number }
  return { wire, headerBlock, bodyHash: bodyHash ?? dkimBodyHash(wire.subarray(bodyStart)) }
}

const CRLF = Buffer.from('\r\n')

/** SMTP's end of data starts with the last line's CRLF: a body without one gets it (no bare line ends here). */
function withFinalCrlf(message: Buffer, body: Buffer): Buffer {
  if (body.length === 0 || (body[body.length - 2] === 0x0d && body[body.length - 1] === 0x0a)) return message
  return Buffer.concat([message, CRLF])
}

/** The header block with its last CRLF, and where the body starts; undefined without the empty line. */
function splitMessage(message: Buffer): { headerBlock: Buffer; bodyStart: number } | undefined {
  // A message that opens with its empty line has no header fields.
  if (message[0] === 0x0d && message[1] === 0x0a) return { headerBlock: message.subarray(0, 0), bodyStart: 2 }
  const end = message.indexOf('\r\n\r\n')
  if (end === -1) return undefined
  return { headerBlock: message.subarray(0, end + 2), bodyStart: end + 4 }
}

/** A domain's signatures differ per message only in bh= and b=: the rest is folded once. */
interface SignatureTemplate {
  /** The DKIM-Signature header up to `b=`, split where bh='s value goes. */
  header: [string, string]
  /** The same relaxed (`relaxedField`), split where bh='s value goes. */
  relaxed: [string, string]
  /** The length of the header's last line, where the folded b= value starts. */
  lastLineLength: number
}

const templates = new Map<string, SignatureTemplate>()

/**
 * The folded `DKIM-Signature` header for these tags with a placeholder as long as the body hash (the
 * folding depends on lengths only), kept per domain, selector, signed names and hash length.
 */
function signatureTemplate(
  domain: string,
  selector: string,
  names: string,
  bodyHashLength: number,
): SignatureTemplate {
  const cacheKey = `${domain};${selector};${names};${bodyHashLength}`
  let template = templates.get(cacheKey)
  if (template === undefined) {
    // Base64 has no '#': the placeholder is found where bh='s value is, and only there.
    const placeholder = '#'.repeat(bodyHashLength)
    const header = foldedHeader([
      'v=1',
      'a=rsa-sha256',
      'c=relaxed/relaxed',
      `d=${domain}`,
      'q=dns/txt',
      `s=${selector}`,
      `bh=${placeholder}`,
      `h=${names}`,
      'b=',
    ])
    const relaxed = relaxedField({ name: 'dkim-signature', text: header })
    template = {
      header: splitAround(header, placeholder),
      relaxed: splitAround(relaxed, placeholder),
      lastLineLength: lastLineLength(header),
    }
    // A worker signs for a bounded set of domains; the bound only guards against one that does not.
    if (templates.size >= 1_000) templates.clear()
    templates.set(cacheKey, template)
  }
  return template
}

function splitAround(text: string, placeholder: string): [string, string] {
  const at = text.indexOf(placeholder)
  return [text.slice(0, at), text.slice(at + placeholder.length)]
}

const identities = new Map<string, { domain: string; selector: string }>()

/** `d=` and `s=` checked (and the domain made ASCII) once per domain and selector. */
function signingIdentity(key: DkimKey): { domain: string; selector: string } {
  const cacheKey = `${key.domainName}\n${key.keySelector}`
  let identity = identities.get(cacheKey)
  if (identity === undefined) {
    identity = { domain: signingDomain(key.domainName), selector: signingSelector(key.keySelector) }
    if (identities.size >= 1_000) identities.clear()
    identities.set(cacheKey, identity)
  }
  return identity
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
