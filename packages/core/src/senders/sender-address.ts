import { domainToASCII } from 'node:url'
import { z } from 'zod'
import { HEADER_UNSAFE_MESSAGE, isHeaderSafe } from '../accept/header-safe'
import { isEmailAddress } from '../domain/email-address'

/**
 * A From or Reply-To value as a tenant gives it: `"News Team" <news@example.com>`,
 * `News Team <news@example.com>`, `<news@example.com>` or `news@example.com`. It ends up in a header,
 * so anything that could add a header of its own (CR, LF, other controls) is refused, never cleaned.
 *
 * One address has one spelling once accepted: the domain lowercase and in punycode
 * (`news@Bücher.DE` → `news@xn--bcher-kva.de`, the form `sending_domains.name` has), the local part
 * exactly as given (it is the receiving server's to interpret), and the display name always quoted
 * (with `\` and `"` escaped), so the stored value is a header that parses back to the same thing.
 */
export interface SenderAddress {
  /** The display name, or null when there is none. */
  name: string | null
  /** `local@domain` with the domain normalised. */
  address: string
  localPart: string
  /** Lowercase ASCII (punycode): compared with `sending_domains.name` as it is. */
  domain: string
}

export type SenderAddressCheck =
  | { ok: true; sender: SenderAddress; header: string }
  | { ok: false; message: string }

export const MAX_DISPLAY_NAME_CHARS = 200
/** RFC 5321's limit on a path (without the angle brackets). */
const MAX_ADDRESS_CHARS = 254
/** A whole header value: the longest name and address plus quotes, escapes and brackets. */
const MAX_INPUT_CHARS = 2 * MAX_DISPLAY_NAME_CHARS + MAX_ADDRESS_CHARS + 8

export function parseSenderAddress(input: string): SenderAddressCheck {
  if (!isHeaderSafe(input)) return refuse(HEADER_UNSAFE_MESSAGE)
  const value = input.trim()
  if (value === '') return refuse('must not be empty')
  if (value.length > MAX_INPUT_CHARS) return refuse(`must be at most ${MAX_INPUT_CHARS} characters`)

  let name: string | null = null
  let address = value
  if (value.endsWith('>')) {
    const open = value.lastIndexOf('<')
    if (open === -1) return refuse(SHAPE)
    address = value.slice(open + 1, -1).trim()
    const phrase = readDisplayName(value.slice(0, open).trim())
    if (phrase === undefined) return refuse(SHAPE)
    name = phrase
  } else if (/[<>]/.test(value)) {
    return refuse(SHAPE)
  }
  if (name !== null && [...name].length > MAX_DISPLAY_NAME_CHARS) {
    return refuse(`has a display name longer than ${MAX_DISPLAY_NAME_CHARS} characters`)
  }

  const at = address.lastIndexOf('@')
  if (at <= 0 || at === address.length - 1 || /[\s<>"]/.test(address)) return refuse(ADDRESS)
  const localPart = address.slice(0, at)
  const domain = domainToASCII(address.slice(at + 1).replace(/\.$/, ''))
  const normalised = `${localPart}@${domain}`
  if (domain === '' || normalised.length > MAX_ADDRESS_CHARS || !isEmailAddress(normalised)) {
    return refuse(ADDRESS)
  }
  const sender: SenderAddress = { name, address: normalised, localPart, domain }
  return { ok: true, sender, header: formatSenderAddress(sender) }
}

/** The header value: `"Name" <local@domain>`, or the bare address without a name. */
export function formatSenderAddress(sender: Pick<SenderAddress, 'name' | 'address'>): string {
  if (sender.name === null || sender.name === '') return sender.address
  return `"${sender.name.replace(/[\\"]/g, (char) => `\\${char}`)}" <${sender.address}>`
}

const SHAPE = 'must be an address (news@example.com) or a name and address ("News" <news@example.com>)'
const ADDRESS = 'must contain a valid email address such as news@example.com'

/**
 * The text before `<`: empty (no name), a quoted string (its escapes undone) or plain words. Null
 * for "no name"; undefined when it is neither (an unbalanced quote, a stray bracket).
 */
function readDisplayName(phrase: string): string | null | undefined {
  if (phrase === '') return null
  if (phrase.startsWith('"')) {
    if (phrase.length < 2 || !phrase.endsWith('"')) return undefined
    let out = ''
    const inner = phrase.slice(1, -1)
    for (let index = 0; index < inner.length; index++) {
      const char = inner[index] as string
      if (char === '\\') {
        const next = inner[index + 1]
        if (next === undefined) return undefined
        out += next
        index++
      } else if (char === '"') {
        return undefined
      } else {
        out += char
      }
    }
    const trimmed = out.trim()
    return trimmed === '' ? null : trimmed
  }
  if (/[<>"]/.test(phrase)) return undefined
  return phrase.replace(/\s+/g, ' ')
}

function refuse(message: string): SenderAddressCheck {
  return { ok: false, message }
}

/** The request field for `from` / `replyTo`: a string that parses as above, given on as its header value. */
export function senderAddressField(description: string) {
  return stringField().transform(toHeader).describe(description)
}

/**
 * A saved sender's field (campaign, template, tenant default): as `senderAddressField`, but null or
 * an empty string (an API's `null`, a form's empty input) means "none" and comes out as null.
 */
export function clearableSenderAddressField(description: string) {
  return stringField()
    .nullable()
    .transform((value, context) => (value === null || value.trim() === '' ? null : toHeader(value, context)))
    .describe(description)
}

const stringField = () =>
  z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })

function toHeader(value: string, context: z.RefinementCtx): string {
  const parsed = parseSenderAddress(value)
  if (parsed.ok) return parsed.header
  context.addIssue({ code: 'custom', message: parsed.message, input: value })
  return z.NEVER
}

export const FROM_FIELD_DESCRIPTION =
  'The From header: `"Name" <local@domain>` or an address, on one of your verified sending domains (else 422). Without it: your template’s From (when sending one of your templates), else your default sender, else the platform’s address with your name.'
export const REPLY_TO_FIELD_DESCRIPTION =
  'The Reply-To header: `"Name" <local@domain>` or an address, any domain. Without it: your template’s Reply-To, else your default Reply-To, else none.'
