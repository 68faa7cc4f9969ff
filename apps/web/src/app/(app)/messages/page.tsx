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
  /** Days (YYYY-MM-DD, UTC): created on or after `from`, on or before `until`. */
  from?: string
  until?: string
}

const DAY = /^\d{4}-\d{2}-\d{2}$/
const dayOf = (value: string | undefined) =>
  value && DAY.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ? value : undefined

const NOTICES: Record<string, string> = {
  cancelled: 'Cancelled: that message will not be sent.',
  'not-cancellable': 'Too late to cancel: that message is being sent or has been sent.',
}

const one = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined)

/** Unknown filter values are dropped rather than refused: a stale bookmark still shows a page. */
function readFilter(params: Record<string, string | string[] | undefined>): Filter {
  const status = one(params.status)
  const lane = one(params.lane)
  const q = one(params.q)?.trim().slice(0, 200)
  const from = dayOf(one(params.from))
  const until = dayOf(one(params.until))
  return {
    ...(from ? { from } : {}),
    ...(until ? { until } : {}),
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
  if (filter.from) query.set('from', filter.from)
  if (filter.until) query.set('until', filter.until)
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
    from: filter.from ? new Date(`${filter.from}T00:00:00Z`) : undefined,
    until: filter.until ? new Date(Date.parse(`${filter.until}T00:00:00Z`) + 86_400_000) : undefined,
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
      <p className="muted">
        Transactional mail sent through the API, newest first; scheduled mail can be cancelled until its time.
      </p>
      {typeof params.notice === 'string' && NOTICES[params.notice] ? (
        <p className="notice" role="status" data-testid="messages-notice">
          {NOTICES[params.notice]}
        </p>
      ) : null}

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
            <label htmlFor="filter-from">From (UTC day)</label>
            <input id="filter-from" name="from" type="date" defaultValue={filter.from ?? ''} />
          </div>
          <div className="field">
            <label htmlFor="filter-until">Until (UTC day)</label>
            <input id="filter-until" name="until" type="date" defaultValue={filter.until ?? ''} />
          </div>
          <div className="field">
            <button type="submit" className="button">
              Filter
            </button>
          </div>
          {filter.q || filter.status || filter.lane || filter.from || filter.until ? (
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
