import { MailParser } from 'mailparser'

export interface SubmittedAttachment {
  filename: string
  contentType: string
  sizeBytes: number
}

/** A page lists this many at most; a message with more says so by its length alone. */
export const MAX_LISTED_ATTACHMENTS = 50

/**
 * The attachments of a message submitted over SMTP (its kept MIME), for the message page and
 * `GET /api/v1/messages/:id`: name, type and decoded size, read by mailparser as a stream — each
 * part's bytes are counted and dropped, never kept — and at most MAX_LISTED_ATTACHMENTS of them.
 * The input is bounded already (MAX_MESSAGE_BYTES at submission). MIME it cannot read lists nothing.
 */
export function listSubmittedAttachments(raw: Uint8Array): Promise<SubmittedAttachment[]> {
  const parser = new MailParser({ skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true })
  const found: SubmittedAttachment[] = []
  return new Promise((resolve) => {
    parser.on('data', (part: ParsedPart) => {
      if (part.type !== 'attachment') return
      let sizeBytes = 0
      part.content.on('data', (chunk: Buffer) => {
        sizeBytes += chunk.length
      })
      part.content.on('end', () => {
        if (found.length < MAX_LISTED_ATTACHMENTS) {
          found.push({ filename: part.filename ?? 'unnamed', contentType: part.contentType, sizeBytes })
        }
        part.release()
      })
    })
    parser.on('end', () => resolve(found))
    parser.on('error', () => resolve(found))
    parser.end(Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength))
  })
}

/** The part of mailparser's `data` event this reads (its typings describe the attachment loosely). */
interface ParsedPart {
  type: 'attachment' | 'text'
  filename?: string
  contentType: string
  content: NodeJS.ReadableStream
  release(): void
}
