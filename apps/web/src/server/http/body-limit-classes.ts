import { MAX_SUPPRESSION_CSV_BYTES } from '@fairlane/core'

/**
 * The classes of request body cap (`body-limits.ts` holds each request to its route's class). Apart
 * from the route table, so a handler may read its own class's cap without importing the catalog (and
 * with it every handler, the admin console's too) into a page that only renders the API document.
 */
export const BODY_LIMITS = {
  /** `/api/**` JSON (a campaign's HTML is at most 512 KB, its JSON at most twice that). */
  api: 1024 * 1024,
  /**
   * `POST /api/v1/messages`, which may carry attachments: a message of MAX_MESSAGE_BYTES' default
   * (10 MB decoded) as base64 JSON. Only an authenticated call reads that much (the key is checked
   * before the body), and the handler still holds the rest of the body to 64 KB (`post-message.ts`).
   */
  message: messageBodyLimit(10 * 1024 * 1024),
  /** `POST /api/v1/contacts` (10,000 contacts) and the import page's batches (`/contacts/import/rows`). */
  contactsImport: 5 * 1024 * 1024,
  /** `POST /api/v1/messages/batch`: 500 messages (`MAX_BATCH_BODY_BYTES`, `post-messages-batch.ts`). */
  messagesBatch: 8 * 1024 * 1024,
  /** A suppression CSV, by API or from the Suppressions page (core's MAX_SUPPRESSION_CSV_BYTES). */
  suppressionsImport: MAX_SUPPRESSION_CSV_BYTES,
  /** better-auth's `/api/auth/*`: an email and a password. */
  auth: 16 * 1024,
  /** `POST /u/:token`: RFC 8058's `List-Unsubscribe=One-Click`, or the confirm form's empty body. */
  unsubscribe: 4 * 1024,
  /** Pages and server actions: the same as next.config's `serverActions.bodySizeLimit`. */
  pages: 2 * 1024 * 1024,
} as const

export type BodyClass = keyof typeof BODY_LIMITS

/**
 * The JSON body a message of `maxMessageBytes` (decoded) needs: base64 makes 4 bytes of every 3, and
 * 1 MB more holds the JSON around it (names, types, the 64 KB of body the handler allows besides).
 */
export function messageBodyLimit(maxMessageBytes: number): number {
  return Math.ceil(maxMessageBytes / 3) * 4 + 1024 * 1024
}
