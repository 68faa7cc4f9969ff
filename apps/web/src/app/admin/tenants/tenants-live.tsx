'use client'

import { useState } from 'react'
import { type DataColumn, DataTable } from '@/components/data-table'
import type { TenantLoadJson } from '@/server/api/admin/list-tenants'
import styles from '../admin.module.css'
import { formatCount } from '../format'
import { usePolling } from '../use-polling'
import { ApproveButton } from './approve-button'
import { PlanEditor } from './plan-editor'
import { describeLimits, describePlan } from './plan-form'
import { TenantHistory } from './tenant-history'

type SortKey = 'name' | 'backlog' | 'sentLastMinute' | 'deferredLastMinute'

type Sort = { key: SortKey; descending: boolean }

/** The sortable columns, each header a button that sorts by it (again: the other way). */
function loadColumns(sort: Sort, sortBy: (key: SortKey) => void): DataColumn<TenantLoadJson>[] {
  const sortable = (
    key: SortKey,
    label: string,
    column: Omit<DataColumn<TenantLoadJson>, 'header'>,
  ): DataColumn<TenantLoadJson> => ({
    ...column,
    sort: sort.key === key ? (sort.descending ? 'descending' : 'ascending') : undefined,
    header: (
      <button type="button" className={styles.sortButton} onClick={() => sortBy(key)}>
        {label}
        {sort.key === key ? (sort.descending ? ' ↓' : ' ↑') : ''}
      </button>
    ),
  })
  return [
    sortable('name', 'Tenant', {
      rowHeader: true,
      cell: (row) => (
        <>
          {row.name}
          {row.platform ? <span className="muted"> (platform: Fairlane's account mail)</span> : null}
          {row.approved ? null : <span data-testid="tenant-held"> — waiting for approval</span>}
        </>
      ),
    }),
    sortable('backlog', 'Backlog', {
      testId: 'tenant-backlog',
      cell: (row) => (
        <>
          {formatCount(row.backlog.pending + row.backlog.queued)}{' '}
          <span className="muted">
            ({formatCount(row.backlog.pending)} pending, {formatCount(row.backlog.queued)} queued)
          </span>
        </>
      ),
    }),
    sortable('sentLastMinute', 'Sent, last minute', {
      testId: 'tenant-sent',
      cell: (row) => formatCount(row.sentLastMinute),
    }),
    sortable('deferredLastMinute', 'Deferred, last minute', {
      cell: (row) => formatCount(row.deferredLastMinute),
    }),
  ]
}

const sortValue = (row: TenantLoadJson, key: SortKey) =>
  key === 'backlog' ? row.backlog.pending + row.backlog.queued : key === 'name' ? row.name : row[key]

/** Tenants per page (by name); sorting applies within the page. */
const PAGE_SIZE = 100

/** Tenants' load and plan, a page at a time, sortable, with a plan editor and 30-day history per tenant. */
export function TenantsLive() {
  // The cursors of the pages before this one (the API's cursor is the last tenant id of a page).
  const [cursors, setCursors] = useState<string[]>([])
  const cursor = cursors.at(-1)
  const { data, error, refresh } = usePolling<TenantLoadJson[]>(
    `/api/admin/tenants?limit=${PAGE_SIZE}${cursor ? `&cursor=${cursor}` : ''}`,
  )
  // A full page may have a next one; the API's order is by name, so its last row is the cursor.
  const nextCursor = data && data.length === PAGE_SIZE ? data.at(-1)?.id : undefined
  const [sort, setSort] = useState<Sort>({
    key: 'backlog',
    descending: true,
  })
  const [editing, setEditing] = useState<string | null>(null)
  const [history, setHistory] = useState<{ id: string; name: string } | null>(null)
  const [notice, setNotice] = useState<string | null>(null)

  const rows = [...(data ?? [])].sort((a, b) => {
    const x = sortValue(a, sort.key)
    const y = sortValue(b, sort.key)
    const order = typeof x === 'string' ? x.localeCompare(String(y)) : x - Number(y)
    return (sort.descending ? -order : order) || a.name.localeCompare(b.name)
  })
  const sortBy = (key: SortKey) =>
    setSort((current) => ({ key, descending: current.key === key ? !current.descending : key !== 'name' }))

  return (
    <>
      {notice ? (
        <p className="notice" role="status" data-testid="plan-notice">
          {notice}
        </p>
      ) : null}
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <section className="card" aria-labelledby="tenants-title">
        <h2 id="tenants-title">
          {data
            ? `${data.length} tenants${cursors.length > 0 ? ` (page ${cursors.length + 1})` : ''}`
            : 'Loading…'}
        </h2>
        <DataTable
          label="Tenants"
          testId="tenants-table"
          columns={[
            ...loadColumns(sort, sortBy),
            {
              header: 'Named plan',
              testId: 'tenant-plan-name',
              cell: (row) => row.planName,
            },
            {
              header: 'Plan',
              testId: 'tenant-plan',
              cell: (row) => describePlan(row.plan),
            },
            {
              header: 'Transactional and quota',
              testId: 'tenant-limits',
              cell: (row) => <span className="muted">{describeLimits(row.plan)}</span>,
            },
            {
              header: <span className="visually-hidden">Actions</span>,
              cell: (row) => (
                <div className={styles.actions}>
                  {row.approved ? null : (
                    <ApproveButton
                      tenant={row}
                      onDone={(message) => {
                        setNotice(message)
                        refresh()
                      }}
                    />
                  )}
                  <button
                    type="button"
                    className="button-secondary"
                    onClick={() => {
                      setNotice(null)
                      setEditing(editing === row.id ? null : row.id)
                    }}
                    aria-expanded={editing === row.id}
                  >
                    Edit plan
                  </button>
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => setHistory({ id: row.id, name: row.name })}
                  >
                    30 days
                  </button>
                </div>
              ),
            },
          ]}
          rows={rows}
          rowKey={(row) => row.id}
          rowData={(row) => ({ 'data-tenant': row.id })}
          rowDetail={(row) =>
            editing === row.id ? (
              <PlanEditor
                tenant={row}
                onDone={(message) => {
                  setEditing(null)
                  if (message) {
                    setNotice(message)
                    refresh()
                  }
                }}
              />
            ) : null
          }
        />
        <nav className="pager" aria-label="Tenant pages">
          {cursors.length > 0 ? (
            <button type="button" className="button-secondary" onClick={() => setCursors([])}>
              First page
            </button>
          ) : null}
          {nextCursor ? (
            <button
              type="button"
              className="button-secondary"
              onClick={() => setCursors((current) => [...current, nextCursor])}
            >
              Next page
            </button>
          ) : null}
        </nav>
      </section>
      {history ? <TenantHistory key={history.id} tenant={history} onClose={() => setHistory(null)} /> : null}
    </>
  )
}
