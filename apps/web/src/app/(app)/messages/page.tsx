import { isLane, type Lane, MESSAGE_STATUSES, type MessageStatus } from '@fairlane/core'
import { listMessageLog } from '@fairlane/db/queries/messages-log'
import type { Metadata } from 'next'
import Link from 'next/link'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import { MessageTable } from './message-table'

export const metadata: Metadata = { title: 'Messages' }

const PAGE_SIZE = 50
/** API mail travels these lanes; `bulk` is campaign mail, shown on its campaign. */
const API_LANES: Lane[] = ['critical', 'default']

type SearchParams = Promise<Record<string, string | string[] | undefined>>

interface Filter {
  status?: MessageStatus
  lane?: Lane
  q?: string
}

const one = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined)

/** Unknown filter values are dropped rather than refused: a stale bookmark still shows a page. */
function readFilter(params: Record<string, string | string[] | undefined>): Filter {
  const status = one(params.status)
  const lane = one(params.lane)
  const q = one(params.q)?.trim().slice(0, 200)
  return {
    ...(status && (MESSAGE_STATUSES as readonly string[]).includes(status)
      ? { status: status as MessageStatus }
      : {}),
    ...(lane && isLane(lane) ? { lane } : {}),
    ...(q ? { q } : {}),
  }
}

function href(filter: Filter, after?: string): string {
  const query = new URLSearchParams()
  if (filter.status) query.set('status', filter.status)
  if (filter.lane) query.set('lane', filter.lane)
  if (filter.q) query.set('q', filter.q)
  if (after) query.set('after', after)
  const text = query.toString()
  return text ? `/messages?${text}` : '/messages'
}

function bodyRetentionDays(lane: Lane): number {
  const { config } = container()
  return lane === 'critical'
    ? config.MESSAGE_BODY_RETENTION_DAYS_CRITICAL
    : config.MESSAGE_BODY_RETENTION_DAYS
}

export default async function MessagesPage({ searchParams }: { searchParams: SearchParams }) {
  const session = await requireTenantSession()
  const params = await searchParams
  const filter = readFilter(params)
  const after = one(params.after)
  const rows = await listMessageLog(container().database.db, {
    tenantId: session.tenantId,
    status: filter.status,
    lane: filter.lane,
    recipient: filter.q,
    after: after && isUuid(after) ? after : undefined,
    limit: PAGE_SIZE,
  })
  const page = rows.slice(0, PAGE_SIZE)
  const last = page.at(-1)
  const nextHref = rows.length > PAGE_SIZE && last ? href(filter, last.id) : null

  return (
    <>
      <div className="page-header">
        <h1>Messages</h1>
      </div>
      <p className="muted">Transactional mail sent through the API, newest first.</p>

      <search aria-label="Filter messages">
        <form method="get" action="/messages" className="form-inline card">
          <div className="field">
            <label htmlFor="filter-q">Recipient</label>
            <input
              id="filter-q"
              name="q"
              type="search"
              defaultValue={filter.q ?? ''}
              placeholder="name@example.com"
            />
          </div>
          <div className="field">
            <label htmlFor="filter-status">Status</label>
            <select id="filter-status" name="status" defaultValue={filter.status ?? ''}>
              <option value="">Any status</option>
              {MESSAGE_STATUSES.map((status) => (
                <option key={status} value={status}>
                  {status}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="filter-lane">Lane</label>
            <select id="filter-lane" name="lane" defaultValue={filter.lane ?? ''}>
              <option value="">Any lane</option>
              {API_LANES.map((lane) => (
                <option key={lane} value={lane}>
                  {lane}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <button type="submit" className="button">
              Filter
            </button>
          </div>
          {filter.q || filter.status || filter.lane ? (
            <div className="field">
              <Link href="/messages">Clear filters</Link>
            </div>
          ) : null}
        </form>
      </search>

      {page.length === 0 ? (
        <p className="muted">{after ? 'No more messages.' : 'No messages match.'}</p>
      ) : (
        <MessageTable messages={page} bodyRetentionDays={bodyRetentionDays} />
      )}
      <nav className="pager" aria-label="Pages">
        {after ? <Link href={href(filter)}>Newest</Link> : null}
        {nextHref ? <Link href={nextHref}>Older messages</Link> : null}
      </nav>
    </>
  )
}
