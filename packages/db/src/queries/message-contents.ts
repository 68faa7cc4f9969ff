import type { KeptContent, MessageContentKind } from '@fairlane/core/delivery'
import { and, asc, eq } from 'drizzle-orm'
import type { Executor } from '../client'
import { messageAttachments, messageContents } from '../schema'

const ofMessage = (query: { tenantId: string; messageId: string }) => ({
  contents: and(eq(messageContents.tenantId, query.tenantId), eq(messageContents.messageId, query.messageId)),
  attachments: and(
    eq(messageAttachments.tenantId, query.tenantId),
    eq(messageAttachments.messageId, query.messageId),
  ),
})

/** The send's content of a claimed message (`DeliveryStore.readContent`); undefined once it is gone. */
export async function readKeptContent(
  db: Executor,
  query: { tenantId: string; messageId: string; kind: MessageContentKind },
): Promise<KeptContent | undefined> {
  if (query.kind === 'raw') {
    const [row] = await db
      .select({ raw: messageContents.raw })
      .from(messageContents)
      .where(ofMessage(query).contents)
    return row ? { kind: 'raw', raw: row.raw } : undefined
  }
  const rows = await db
    .select({
      filename: messageAttachments.filename,
      contentType: messageAttachments.contentType,
      contentId: messageAttachments.contentId,
      content: messageAttachments.content,
    })
    .from(messageAttachments)
    .where(ofMessage(query).attachments)
    .orderBy(asc(messageAttachments.position))
  return rows.length > 0 ? { kind: 'attachments', attachments: rows } : undefined
}

export interface AttachmentSummary {
  filename: string
  contentType: string
  sizeBytes: number
}

/** A message's API attachments without their bytes, in order; none for another tenant's message. */
export async function listAttachmentSummaries(
  db: Executor,
  query: { tenantId: string; messageId: string },
): Promise<AttachmentSummary[]> {
  return db
    .select({
      filename: messageAttachments.filename,
      contentType: messageAttachments.contentType,
      sizeBytes: messageAttachments.sizeBytes,
    })
    .from(messageAttachments)
    .where(ofMessage(query).attachments)
    .orderBy(asc(messageAttachments.position))
}

/** The MIME a message was submitted with over SMTP, while it is kept; null otherwise. */
export async function readSubmittedMime(
  db: Executor,
  query: { tenantId: string; messageId: string },
): Promise<Buffer | null> {
  const [row] = await db
    .select({ raw: messageContents.raw })
    .from(messageContents)
    .where(ofMessage(query).contents)
  return row?.raw ?? null
}
