import libmime from 'libmime'
import type { Lane } from '../domain/lanes'
import { validationFailed } from '../errors/app-error'
import { parseIdempotencyKey } from './idempotency-key'

/**
 * A message as an SMTP client submitted it (the DATA, dot-unstuffed), read only as far as acceptance
 * needs: its header block. The body is never parsed here; it is kept byte for byte.
 */

/** Headers that steer Fairlane and never reach a recipient: removed from the stored message. */
const CONTROL_HEADER = /^(x-fairlane-[a-z0-9-]*|idempotency-key)$/i
export const SUBMISSION_LANES = ['critical', 'default'] as const satisfies readonly Lane[]
export const MAX_SUBMISSION_TAGS = 10
const TAG = /^[A-Za-z0-9_.:-]{1,64}$/
/** RFC 5322's limit on a line; a subject longer than that is not one a client meant. */
const MAX_SUBJECT_CHARS = 998

export interface HeaderField {
  /** As written, lowercased. */
  name: string
  /** Unfolded (CRLF before white space removed), the raw bytes read as UTF-8, encoded words left. */
  value: string
}

export interface SubmittedMessage {
  /** Line endings CRLF, the control headers gone: what is stored and sent. */
  raw: Buffer
  /** The From header's value, RFC 2047 words decoded; null when there is none. */
  from: string | null
  fromCount: number
  subject: string | null
  lane: Exclude<Lane, 'bulk'>
  tags: string[]
  idempotencyKey: string | null
}

/**
 * Bare LF (and CRLF) become CRLF: RFC 5321 asks for CRLF, many scripts and printers send LF, and
 * refusing them only pushes the senders elsewhere. A lone CR is left as it is. Bytes are kept (latin1
 * maps each byte to one char), so 8-bit content survives untouched.
 */
export function normaliseLineEndings(data: Buffer): Buffer {
  const text = data.toString('latin1')
  if (!/(^|[^\r])\n/.test(text)) return data
  return Buffer.from(text.replace(/\r?\n/g, '\r\n'), 'latin1')
}

/** The header block's end: the index of the empty line's CRLF (the body follows it), or -1: no body. */
function headerEnd(text: string): number {
  if (text.startsWith('\r\n')) return 0
  const index = text.indexOf('\r\n\r\n')
  return index === -1 ? -1 : index + 2
}

/** Splits a CRLF header block into fields, each with the lines that make it up. */
function splitFields(block: string): Array<{ lines: string; name: string | null }> {
  const fields: Array<{ lines: string; name: string | null }> = []
  for (const line of block.split('\r\n')) {
    if (line === '') continue
    const last = fields.at(-1)
    if ((line.startsWith(' ') || line.startsWith('\t')) && last) {
      last.lines += `\r\n${line}`
      continue
    }
    const colon = line.indexOf(':')
    fields.push({ lines: line, name: colon > 0 ? line.slice(0, colon).trim().toLowerCase() : null })
  }
  return fields
}

function fieldValue(lines: string): string {
  const colon = lines.indexOf(':')
  const unfolded = lines.slice(colon + 1).replace(/\r\n(?=[ \t])/g, '')
  return Buffer.from(unfolded, 'latin1').toString('utf8').trim()
}

function decode(value: string): string {
  try {
    return libmime.decodeWords(value)
  } catch {
    return value
  }
}

/**
 * Reads the header block of normalised DATA: From and Subject (decoded), the `X-Fairlane-Lane` and
 * `X-Fairlane-Tags` headers and `Idempotency-Key`, and drops those control headers from what is
 * kept. A bad control header is refused naming it (it would otherwise be silently ignored).
 */
export function readSubmittedMessage(data: Buffer): SubmittedMessage {
  const text = data.toString('latin1')
  const end = headerEnd(text)
  const block = end === -1 ? text : text.slice(0, end)
  const fields = splitFields(block)
  const first = (name: string) => {
    const field = fields.find((candidate) => candidate.name === name)
    return field ? fieldValue(field.lines) : null
  }
  const froms = fields.filter((field) => field.name === 'from')
  const subject = first('subject')
  const kept = fields.filter((field) => field.name === null || !CONTROL_HEADER.test(field.name))
  const raw =
    kept.length === fields.length
      ? data
      : Buffer.from(
          kept.map((field) => `${field.lines}\r\n`).join('') + (end === -1 ? '' : text.slice(end)),
          'latin1',
        )
  const from = froms[0] ? decode(fieldValue(froms[0].lines)) : null
  return {
    raw,
    from,
    fromCount: froms.length,
    subject: subject === null ? null : decode(subject).slice(0, MAX_SUBJECT_CHARS),
    lane: readLane(first('x-fairlane-lane')),
    tags: readTags(first('x-fairlane-tags')),
    idempotencyKey: parseIdempotencyKey(first('idempotency-key')),
  }
}

function readLane(value: string | null): Exclude<Lane, 'bulk'> {
  if (value === null || value === '') return 'default'
  const lane = value.toLowerCase()
  if (lane === 'critical' || lane === 'default') return lane
  throw validationFailed([{ path: 'X-Fairlane-Lane', message: 'must be critical or default' }])
}

function readTags(value: string | null): string[] {
  if (value === null) return []
  const tags = [
    ...new Set(
      value
        .split(',')
        .map((tag) => tag.trim())
        .filter(Boolean),
    ),
  ]
  if (tags.length > MAX_SUBMISSION_TAGS) {
    throw validationFailed([
      { path: 'X-Fairlane-Tags', message: `must name at most ${MAX_SUBMISSION_TAGS} tags` },
    ])
  }
  const bad = tags.find((tag) => !TAG.test(tag))
  if (bad !== undefined) {
    throw validationFailed([
      {
        path: 'X-Fairlane-Tags',
        message: 'must be comma-separated tags of 1 to 64 letters, digits, _ . : or -',
      },
    ])
  }
  return tags
}
