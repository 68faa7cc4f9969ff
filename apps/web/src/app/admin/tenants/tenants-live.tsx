'use client'

import { Fragment, useState } from 'react'
import styles from '../admin.module.css'
import { formatCount } from '../format'
import { usePolling } from '../use-polling'
import { PlanEditor } from './plan-editor'
import type { Plan } from './plan-form'
import { TenantHistory } from './tenant-history'

interface TenantRow {
  id: string
  name: string
  plan: Plan
  backlog: { pending: number; queued: number }
  sentLastMinute: number
  deferredLastMinute: number
}

type SortKey = 'name' | 'backlog' | 'sentLastMinute' | 'deferredLastMinute'

const COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'name', label: 'Tenant' },
  { key: 'backlog', label: 'Backlog' },
  { key: 'sentLastMinute', label: 'Sent, last minute' },
  { key: 'deferredLastMinute', label: 'Deferred, last minute' },
]

const sortValue = (row: TenantRow, key: SortKey) =>
  key === 'backlog' ? row.backlog.pending + row.backlog.queued : key === 'name' ? row.name : row[key]

/** Tenants per page (by name); sorting applies within the page. */
const PAGE_SIZE = 100

/** Tenants' load and plan, a page at a time, sortable, with a plan editor and 30-day history per tenant. */
export function TenantsLive() {
  // The cursors of the pages before this one (the API's cursor is the last tenant id of a page).
  const [cursors, setCursors] = useState<string[]>([])
  const cursor = cursors.at(-1)
  const { data, error, refresh } = usePolling<TenantRow[]>(
    `/api/admin/tenants?limit=${PAGE_SIZE}${cursor ? `&cursor=${cursor}` : ''}`,
  )
  // A full page may have a next one; the API's order is by name, so its last row is the cursor.
  const nextCursor = data && data.length === PAGE_SIZE ? data.at(-1)?.id : undefined
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({
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
        <div className="table-wrap">
          <table className="table" data-testid="tenants-table">
            <thead>
              <tr>
                {COLUMNS.map((column) => (
                  <th
                    key={column.key}
                    scope="col"
                    aria-sort={
                      sort.key === column.key ? (sort.descending ? 'descending' : 'ascending') : undefined
                    }
                  >
                    <button type="button" className={styles.sortButton} onClick={() => sortBy(column.key)}>
                      {column.label}
                      {sort.key === column.key ? (sort.descending ? ' ↓' : ' ↑') : ''}
                    </button>
                  </th>
                ))}
                <th scope="col">Plan</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <Fragment key={row.id}>
                  <tr data-tenant={row.id}>
                    <th scope="row">{row.name}</th>
                    <td data-testid="tenant-backlog">
                      {formatCount(row.backlog.pending + row.backlog.queued)}{' '}
                      <span className="muted">
                        ({formatCount(row.backlog.pending)} pending, {formatCount(row.backlog.queued)} queued)
                      </span>
                    </td>
                    <td data-testid="tenant-sent">{formatCount(row.sentLastMinute)}</td>
                    <td>{formatCount(row.deferredLastMinute)}</td>
                    <td data-testid="tenant-plan">
                      {row.plan.ratePerSec}/s, burst {row.plan.burst}, weight {row.plan.weight}
                    </td>
                    <td>
                      <div className={styles.actions}>
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
                    </td>
                  </tr>
                  {editing === row.id ? (
                    <tr>
                      <td colSpan={6}>
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
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
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
