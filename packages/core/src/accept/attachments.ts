import { z } from 'zod'
import { AppError, type FieldIssue } from '../errors/app-error'

/** An attachment as accepted: decoded, its name sanitised; stored in `message_attachments` in this order. */
export interface NewAttachment {
  filename: string
  contentType: string
  /** Set: an inline part, referenced as `cid:<contentId>` from the HTML (without angle brackets). */
  contentId: string | null
  content: Uint8Array
}

/** What the deployment allows: MAX_MESSAGE_BYTES and ATTACHMENT_BLOCKED_EXTENSIONS. */
export interface AttachmentRules {
  /** The decoded body and attachments together may not be larger (413 naming `attachments`). */
  maxMessageBytes: number
  /** Lower-case extensions without the dot; a file whose name ends in one is refused (422). */
  blockedExtensions: readonly string[]
}

/** At most this many attachments on one message (400 naming `attachments`). */
export const MAX_ATTACHMENTS = 20

/** A file name's length limit, as most file systems keep it (and RFC 2231 encodes it in any case). */
export const MAX_FILENAME_LENGTH = 255

/**
 * Types a mail client may run when opened, as the large mailbox providers refuse them (Gmail's list
 * is the model): Windows executables and installers, scripts, shortcuts, Java archives.
 */
// biome-ignore format: a list of short words reads better packed
export const DEFAULT_BLOCKED_EXTENSIONS: readonly string[] = [
  'ade', 'adp', 'apk', 'appx', 'bat', 'cab', 'chm', 'cmd', 'com', 'cpl', 'dll', 'dmg', 'exe', 'hta',
  'ins', 'isp', 'iso', 'jar', 'js', 'jse', 'lib', 'lnk', 'mde', 'msc', 'msi', 'msix', 'msp', 'mst',
  'nsh', 'pif', 'ps1', 'scr', 'sct', 'shb', 'sys', 'vb', 'vbe', 'vbs', 'vxd', 'wsc', 'wsf', 'wsh',
]

export const DEFAULT_ATTACHMENT_RULES: AttachmentRules = {
  maxMessageBytes: 10 * 1024 * 1024,
  blockedExtensions: DEFAULT_BLOCKED_EXTENSIONS,
}

/** `type/subtype` (RFC 2045 tokens), no parameters: the mailer writes the Content-Type itself. */
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/
/** A Content-ID's left and right parts (RFC 5322 dot-atom text, `@` allowed), without the brackets. */
const CONTENT_ID = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.@-]{1,250}$/

/**
 * Path separators, C0/C1 controls and format characters (a right-to-left override makes
 * `invoice‮fdp.exe` look like a PDF) are taken out of a file name, and the name cut to
 * MAX_FILENAME_LENGTH keeping its extension; what a client meant as `../../x.pdf` becomes `x.pdf`.
 */
export function sanitizeFilename(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? ''
  const clean = base
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '')
  const chars = Array.from(clean)
  if (chars.length <= MAX_FILENAME_LENGTH) return clean
  const dot = clean.lastIndexOf('.')
  const extension = dot > 0 ? Array.from(clean.slice(dot)) : []
  if (extension.length === 0 || extension.length > 16) return chars.slice(0, MAX_FILENAME_LENGTH).join('')
  const stem = Array.from(clean.slice(0, dot)).slice(0, MAX_FILENAME_LENGTH - extension.length)
  return [...stem, ...extension].join('')
}

/** `a.tar.EXE` → `exe`; null without an extension. */
export function extensionOf(filename: string): string | null {
  const dot = filename.lastIndexOf('.')
  return dot <= 0 || dot === filename.length - 1 ? null : filename.slice(dot + 1).toLowerCase()
}

/**
 * Strict base64 (RFC 4648 §4: the standard alphabet, padded, no line breaks or spaces), decoded.
 * Node's decoder skips what it does not understand, so the bytes are encoded again and must give
 * back the very string: anything else was not base64.
 */
export function decodeStrictBase64(value: string): Uint8Array | null {
  if (value.length % 4 !== 0) return null
  const bytes = Buffer.from(value, 'base64')
  return bytes.toString('base64') === value ? bytes : null
}

const attachmentSchema = z.strictObject({
  filename: z
    .string('must be a string')
    .transform(sanitizeFilename)
    .refine(
      (name) => name.length > 0,
      'must name a file (it is empty once path and control characters are taken out)',
    ),
  contentType: z
    .string('must be a string')
    .regex(MIME_TYPE, 'must be a media type such as application/pdf, without parameters')
    .transform((type) => type.toLowerCase()),
  content: z
    .string('must be a base64 string')
    .min(1, 'must not be empty')
    .transform((value, ctx) => {
      const bytes = decodeStrictBase64(value)
      if (bytes === null) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be base64 (standard alphabet, padded, no line breaks)',
        })
        return z.NEVER
      }
      return bytes
    }),
  contentId: z
    .string('must be a string')
    .transform((id) => id.replace(/^<(.*)>$/, '$1'))
    .pipe(z.string().regex(CONTENT_ID, 'must be a Content-ID such as logo@acme, without spaces'))
    .optional(),
})

/** `"attachments": [...]` of `POST /api/v1/messages`, template and custom bodies alike. */
export const attachmentsField = {
  attachments: z
    .array(attachmentSchema, 'must be an array of attachments')
    .max(MAX_ATTACHMENTS, `must hold at most ${MAX_ATTACHMENTS} attachments`)
    .optional()
    .describe('Files to attach: { filename, contentType, content (base64), contentId? (inline, cid:) }'),
}

type ParsedAttachment = z.output<typeof attachmentSchema>

/** The schema's output as the use case keeps it. */
export function toNewAttachments(parsed: readonly ParsedAttachment[] | undefined): NewAttachment[] {
  return (parsed ?? []).map((attachment) => ({
    filename: attachment.filename,
    contentType: attachment.contentType,
    contentId: attachment.contentId ?? null,
    content: attachment.content,
  }))
}

/**
 * The rules a valid list must still pass: no executable type (422 naming the file) and, with the
 * body's bytes, no more than `maxMessageBytes` decoded (413 naming `attachments`).
 */
export function checkAttachments(
  attachments: readonly NewAttachment[],
  bodyBytes: number,
  rules: AttachmentRules,
): void {
  const blocked = new Set(rules.blockedExtensions.map((extension) => extension.toLowerCase()))
  const refused: FieldIssue[] = attachments.flatMap((attachment, index) => {
    const extension = extensionOf(attachment.filename)
    if (extension === null || !blocked.has(extension)) return []
    return [
      {
        path: `attachments[${index}].filename`,
        message: `${attachment.filename}: .${extension} files are refused`,
      },
    ]
  })
  if (refused.length > 0) {
    throw new AppError(
      'unprocessable',
      `Attachment type refused: ${refused.map((issue) => issue.message).join('; ')}`,
      {
        details: refused,
      },
    )
  }
  const total = bodyBytes + attachmentBytes(attachments)
  if (total > rules.maxMessageBytes) {
    const message = `the message is ${total} bytes decoded, over the limit of ${rules.maxMessageBytes}`
    throw new AppError('payload_too_large', `Attachments too large: ${message}`, {
      details: [{ path: 'attachments', message }],
    })
  }
}

export function attachmentBytes(attachments: readonly NewAttachment[]): number {
  return attachments.reduce((sum, attachment) => sum + attachment.content.byteLength, 0)
}
