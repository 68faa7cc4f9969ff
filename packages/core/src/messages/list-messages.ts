import { z } from 'zod'
import { MESSAGE_STATUSES } from '../domain/statuses'
import { validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'
import { cursorField, encodeCursor, pageLimitField } from '../paging/cursor'
import type { MessageListEntry, MessageListQuery, MessageListStore } from './ports'

export const DEFAULT_MESSAGES_PAGE = 50
export const MAX_MESSAGES_PAGE = 200

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * The cursor is the page's last message id, base64url: its (created_at, id) is read in SQL, because a
 * JavaScript date drops the microseconds PostgreSQL keeps and would skip or repeat rows at a boundary.
 */
export const messageCursorField = cursorField({ maxLength: 64, accepts: (key) => UUID.test(key) })

export function encodeMessageCursor(messageId: string): string {
  return encodeCursor(messageId)
}

const instant = (what: string) =>
  z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 instant, e.g. 2026-12-06T00:00:00Z' })
    .transform((value) => new Date(value))
    .optional()
    .meta({ description: what })

/** The query of `GET /api/v1/messages` (the API document renders it); an unknown parameter is a 400. */
export const messagesQuerySchema = z
  .strictObject({
    status: z.enum(MESSAGE_STATUSES, `must be one of ${MESSAGE_STATUSES.join(', ')}`).optional(),
    to: z
      .string()
      .max(254, 'must be at most 254 characters')
      .optional()
      .meta({ description: 'The recipient’s whole address, any case' }),
    campaignId: z.uuid('must be a campaign id').optional().meta({ description: 'One campaign’s deliveries' }),
    from: instant('Created at or after this instant'),
    until: instant('Created before this instant'),
    cursor: messageCursorField,
    limit: pageLimitField(MAX_MESSAGES_PAGE),
  })
  .refine((query) => !query.from || !query.until || query.from < query.until, {
    path: ['until'],
    message: 'must be after from',
  })

export interface MessagePage {
  items: MessageListEntry[]
  nextCursor?: string
}

/** `?status=` (empty) counts as absent; a wrong one is a 400 naming each field. */
export function parseMessagesQuery(query: Record<string, string>): z.output<typeof messagesQuerySchema> {
  const given = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== ''))
  const parsed = messagesQuerySchema.safeParse(given)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  return parsed.data
}

/**
 * `GET /api/v1/messages?status=&to=&campaignId=&from=&until=&cursor=&limit=`: the tenant's messages
 * (API and campaign mail), newest first, keyset-paged. The app's message log reads the same store with
 * its own filters (`listMessagePage`).
 */
export async function listMessages(
  input: { tenantId: string; query: Record<string, string> },
  deps: { store: MessageListStore },
): Promise<MessagePage> {
  const { cursor, limit = DEFAULT_MESSAGES_PAGE, ...filters } = parseMessagesQuery(input.query)
  return listMessagePage(
    {
      tenantId: input.tenantId,
      ...filters,
      ...(cursor ? { after: cursor } : {}),
      limit,
    },
    deps,
  )
}

/** One page of any message list: reads one row more than it shows, to know there is a next page. */
export async function listMessagePage(
  query: MessageListQuery,
  deps: { store: MessageListStore },
): Promise<MessagePage> {
  const rows = await deps.store.list({ ...query, limit: query.limit + 1 })
  const items = rows.slice(0, query.limit)
  const last = items.at(-1)
  return rows.length > query.limit && last ? { items, nextCursor: encodeMessageCursor(last.id) } : { items }
}
