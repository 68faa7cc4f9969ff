import type { Executor } from '@fairlane/db'
import { listAttachmentSummaries, readSubmittedMime } from '@fairlane/db/queries/message-contents'
import { listSubmittedAttachments } from '@fairlane/mail/submitted-attachments'

export interface AttachmentListing {
  filename: string
  contentType: string
  sizeBytes: number
}

/**
 * What a message carries, for its page and `GET /api/v1/messages/:id`: API mail's attachments from
 * their rows, a submitted message's parsed from its kept MIME (bounded: `listSubmittedAttachments`).
 * Empty once the body retention removed them, and for another tenant's message.
 */
export async function listMessageAttachments(
  db: Executor,
  query: { tenantId: string; messageId: string },
): Promise<AttachmentListing[]> {
  const stored = await listAttachmentSummaries(db, query)
  if (stored.length > 0) return stored
  const raw = await readSubmittedMime(db, query)
  return raw === null ? [] : listSubmittedAttachments(raw)
}
