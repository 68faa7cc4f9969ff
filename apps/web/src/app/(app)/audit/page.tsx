import { type AuditFilter, auditCursor, parseAuditFilter, TENANT_AUDIT_ACTIONS } from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import {
  listTenantAuditActions,
  listTenantAuditPage,
  type TenantAuditRow,
} from '@fairlane/db/queries/tenant-audit'
import type { Metadata } from 'next'
import Link from 'next/link'
import { type DataColumn, DataTable } from '@/components/data-table'
import { DateTime } from '@/components/date-time'
import { authorize } from '@/server/auth/session'
import { container } from '@/server/container'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Audit log' }

const PAGE_SIZE = 50

type Search = Record<string, string | string[] | undefined>

const FILTER_FIELDS = ['action', 'actor', 'from', 'to'] as const

function href(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value) query.set(key, value)
  const text = query.toString()
  return text ? `/audit?${text}` : '/audit'
}

/** What was changed, in a few words: the target and the details worth a glance. */
function describeTarget(row: TenantAuditRow): string {
  const details = row.details ?? {}
  const named = ['name', 'url', 'email', 'prefix']
    .map((key) => details[key])
    .find((v) => typeof v === 'string')
  const extra = [
    typeof details.scope === 'string' ? `scope ${details.scope}` : null,
    typeof details.domain === 'string' ? `domain ${details.domain}` : null,
    Array.isArray(details.changed) ? `changed ${details.changed.join(', ')}` : null,
    typeof details.role === 'string' ? `role ${details.role}` : null,
  ].filter(Boolean)
  const subject = `${row.targetType} ${typeof named === 'string' ? named : row.targetId}`
  return extra.length > 0 ? `${subject} (${extra.join('; ')})` : subject
}

const COLUMNS: DataColumn<TenantAuditRow>[] = [
  { header: 'When', cell: (row) => <DateTime value={row.createdAt} seconds /> },
  { header: 'Who', cell: (row) => row.actor },
  { header: 'Action', cell: (row) => <code>{row.action}</code> },
  { header: 'What', cell: (row) => describeTarget(row) },
  { header: 'From address', cell: (row) => row.ipAddress ?? <span className="muted">—</span> },
]

/**
 * The tenant's audit log for its owners and admins: who changed keys, domains, webhooks, members and
 * suppressions, when and from which address; newest first, narrowed by action, actor and days (UTC),
 * in keyset pages. Entries are kept AUDIT_RETENTION_DAYS.
 */
export default async function AuditPage({ searchParams }: { searchParams: Promise<Search> }) {
  const { session } = await authorize('audit.read')
  const search = await searchParams
  const raw: Record<string, string> = {}
  for (const key of [...FILTER_FIELDS, 'cursor'] as const) {
    const value = search[key]
    if (typeof value === 'string') raw[key] = value.slice(0, 400)
  }
  let filter: AuditFilter = {}
  let filterError: string | null = null
  try {
    filter = parseAuditFilter(raw)
  } catch (error) {
    if (!isAppError(error) || error.code !== 'validation_failed') throw error
    const issue = error.details?.[0]
    filterError =
      issue?.path === 'cursor'
        ? 'That page link is no longer valid; showing the newest entries instead.'
        : `“${issue?.path ?? 'The filter'}” ${issue?.message ?? 'is not valid'}.`
  }
  const { db } = container().database
  const [rows, known] = await Promise.all([
    listTenantAuditPage(db, {
      tenantId: session.tenantId,
      filter: filterError ? {} : filter,
      beforeId: filterError ? undefined : filter.beforeId,
      limit: PAGE_SIZE,
    }),
    listTenantAuditActions(db, { tenantId: session.tenantId }),
  ])
  const entries = rows.slice(0, PAGE_SIZE)
  const last = entries.at(-1)
  const kept = { action: raw.action, actor: raw.actor, from: raw.from, to: raw.to }
  const nextHref = rows.length > PAGE_SIZE && last ? href({ ...kept, cursor: auditCursor(last.id) }) : null
  const actions = [...new Set([...known, ...Object.values(TENANT_AUDIT_ACTIONS)])].sort()
  const narrowed = FILTER_FIELDS.some((field) => raw[field])

  return (
    <>
      <div className="page-header">
        <h1>Audit log</h1>
      </div>
      <p className="muted">
        Who changed this account&rsquo;s members, API keys, domains, webhooks and suppression list, when (UTC)
        and from which address. Entries are kept for {container().config.AUDIT_RETENTION_DAYS} days.
      </p>
      {filterError ? (
        <p className="form-error" role="alert">
          {filterError}
        </p>
      ) : null}
      <search>
        <form method="get" action="/audit" className="form-inline" aria-label="Filter the audit log">
          <div className="field">
            <label htmlFor="audit-action">Action</label>
            <select id="audit-action" name="action" defaultValue={raw.action ?? ''}>
              <option value="">Any action</option>
              {actions.map((action) => (
                <option key={action} value={action}>
                  {action}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="audit-actor">Who</label>
            <input
              id="audit-actor"
              name="actor"
              type="search"
              maxLength={200}
              placeholder="an email, or API key fl_…"
              defaultValue={raw.actor ?? ''}
            />
          </div>
          <div className="field">
            <label htmlFor="audit-from">From (UTC day)</label>
            <input id="audit-from" name="from" type="date" defaultValue={raw.from ?? ''} />
          </div>
          <div className="field">
            <label htmlFor="audit-to">To (UTC day)</label>
            <input id="audit-to" name="to" type="date" defaultValue={raw.to ?? ''} />
          </div>
          <button type="submit" className="button-secondary">
            Filter
          </button>
          {narrowed ? <Link href="/audit">Clear</Link> : null}
        </form>
      </search>
      <section className="card" aria-labelledby="audit-entries">
        <h2 id="audit-entries">Entries</h2>
        <DataTable
          label="Audit log entries"
          columns={COLUMNS}
          rows={entries}
          rowKey={(row) => String(row.id)}
          empty={<p className="muted">{narrowed ? 'No entries match these filters.' : 'No entries yet.'}</p>}
        />
        <nav className="pager" aria-label="Audit log pages">
          {raw.cursor ? <Link href={href(kept)}>Newest</Link> : null}
          {nextHref ? <Link href={nextHref}>Older entries</Link> : null}
        </nav>
      </section>
    </>
  )
}
