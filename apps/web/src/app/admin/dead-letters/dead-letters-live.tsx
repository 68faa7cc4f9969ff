'use client'

import { useMemo, useState } from 'react'
import { type DataColumn, DataTable } from '@/components/data-table'
import { StatusBadge } from '@/components/status-badge'
import type { AuditEntryJson } from '@/server/api/admin/audit-log'
import type { BulkDeadLetterJson } from '@/server/api/admin/bulk-dead-letters'
import type { DeadLetterView } from '@/server/api/admin/dead-letter-view'
import type { TenantLoadJson } from '@/server/api/admin/list-tenants'
import styles from '../admin.module.css'
import { formatInstant } from '../format'
import { sendJson, usePolling } from '../use-polling'
import { ActionDialog, type DeadLetterAction } from './action-dialog'
import { DeadLetterDetail } from './dead-letter-detail'

const AUDIT_COLUMNS: DataColumn<AuditEntryJson>[] = [
  { header: 'When', cell: (entry) => formatInstant(entry.createdAt) },
  { header: 'Who', cell: (entry) => entry.actor },
  { header: 'Action', cell: (entry) => entry.action },
  { header: 'Target', className: styles.error, cell: (entry) => entry.targetId ?? '—' },
  { header: 'Reason', cell: (entry) => entry.reason ?? <span className="muted">none given</span> },
  {
    header: 'Message now',
    testId: 'audit-message-status',
    cell: (entry) => (entry.messageStatus ? <StatusBadge status={entry.messageStatus} /> : '—'),
  },
]

/** What one id's replay or discard came to, from the single route or the bulk one. */
type ActionOutcome = Pick<BulkDeadLetterJson['results'][number], 'id' | 'ok' | 'status'> & {
  error?: { message: string }
}

/** Dead letters, filterable, with replay/discard of one or a selection, and the latest admin actions. */
export function DeadLettersLive() {
  const [tenantId, setTenantId] = useState('')
  const [queue, setQueue] = useState('')
  const [errorText, setErrorText] = useState('')
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const [detailId, setDetailId] = useState<string | null>(null)
  const [pending, setPending] = useState<{ action: DeadLetterAction; ids: string[] } | null>(null)
  const [notice, setNotice] = useState<string | null>(null)

  const query = new URLSearchParams({ limit: '200' })
  if (tenantId) query.set('tenantId', tenantId)
  if (queue) query.set('queue', queue)
  if (errorText.trim()) query.set('error', errorText.trim())
  const list = usePolling<DeadLetterView[]>(`/api/admin/dlq?${query}`)
  // Names for the first 500 tenants (a page); any other shows its id.
  const tenants = usePolling<TenantLoadJson[]>('/api/admin/tenants?limit=500', 10_000)
  const audit = usePolling<AuditEntryJson[]>('/api/admin/audit?limit=10')
  const names = useMemo(() => new Map((tenants.data ?? []).map((t) => [t.id, t.name])), [tenants.data])
  const rows = list.data ?? []
  const visibleSelected = rows.filter((row) => selected.has(row.id)).map((row) => row.id)

  const toggle = (id: string) =>
    setSelected((current) => {
      const next = new Set(current)
      if (next.has(id)) next.delete(id)
      else next.add(id)
      return next
    })

  const act = async (action: DeadLetterAction, ids: string[], reason: string): Promise<string | null> => {
    const [only] = ids
    let outcomes: ActionOutcome[]
    if (ids.length === 1 && only !== undefined) {
      const path = `/api/admin/dlq/${encodeURIComponent(only)}`
      const answer =
        action === 'replay'
          ? await sendJson(`${path}/replay`, 'POST', { reason })
          : await sendJson(path, 'DELETE', { reason })
      if (answer.status === 400) return answer.body?.error?.message ?? 'The server refused the reason'
      outcomes = [
        {
          id: only,
          ok: answer.status === 200,
          status: answer.status,
          ...(answer.body?.error?.message ? { error: { message: answer.body.error.message } } : {}),
        },
      ]
    } else {
      const answer = await sendJson<BulkDeadLetterJson>(`/api/admin/dlq/${action}`, 'POST', { ids, reason })
      if (answer.status !== 200 || !answer.body)
        return answer.body?.error?.message ?? `The server answered ${answer.status}`
      outcomes = answer.body.results.map((result) =>
        result.ok ? { id: result.id, ok: true, status: result.status } : result,
      )
    }
    const done = outcomes.filter((outcome) => outcome.ok).length
    const refused = outcomes.filter((outcome) => !outcome.ok)
    const verb = action === 'replay' ? 'Replayed' : 'Discarded'
    setNotice(
      [
        `${verb} ${done} of ${outcomes.length}.`,
        ...refused.map(
          (outcome) => `${outcome.id}: ${outcome.error?.message ?? `refused (${outcome.status})`}`,
        ),
      ].join(' '),
    )
    setSelected(new Set())
    if (detailId && ids.includes(detailId)) setDetailId(null)
    list.refresh()
    audit.refresh()
    return null
  }

  const deadLetterColumns: DataColumn<DeadLetterView>[] = [
    {
      header: <span className="visually-hidden">Select</span>,
      cell: (row) => (
        <input
          type="checkbox"
          aria-label={`Select dead letter ${row.id}`}
          checked={selected.has(row.id)}
          onChange={() => toggle(row.id)}
        />
      ),
    },
    { header: 'Failed at', cell: (row) => formatInstant(row.failedAt) },
    { header: 'Tenant', cell: (row) => (row.tenantId ? (names.get(row.tenantId) ?? row.tenantId) : '—') },
    { header: 'Lane', cell: (row) => row.queue ?? '—' },
    { header: 'Error', className: styles.error, cell: (row) => row.error },
    { header: 'Attempts', cell: (row) => row.attempts },
    {
      header: 'Actions',
      cell: (row) => (
        <div className={styles.actions}>
          <button type="button" className="link-button" onClick={() => setDetailId(row.id)}>
            Details
          </button>
          <button
            type="button"
            className="button-secondary"
            onClick={() => setPending({ action: 'replay', ids: [row.id] })}
          >
            Replay…
          </button>
          <button
            type="button"
            className="button-danger"
            onClick={() => setPending({ action: 'discard', ids: [row.id] })}
          >
            Discard…
          </button>
        </div>
      ),
    },
  ]

  return (
    <>
      <search>
        <form className={styles.filters} onSubmit={(event) => event.preventDefault()}>
          <label>
            Tenant
            <select value={tenantId} onChange={(event) => setTenantId(event.target.value)}>
              <option value="">All tenants</option>
              {(tenants.data ?? []).map((tenant) => (
                <option key={tenant.id} value={tenant.id}>
                  {tenant.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Lane
            <select value={queue} onChange={(event) => setQueue(event.target.value)}>
              <option value="">All lanes</option>
              <option value="critical">critical</option>
              <option value="default">default</option>
              <option value="bulk">bulk</option>
            </select>
          </label>
          <label>
            Error contains
            <input type="search" value={errorText} onChange={(event) => setErrorText(event.target.value)} />
          </label>
        </form>
      </search>
      {notice ? (
        <p className="notice" role="status" data-testid="action-notice">
          {notice}
        </p>
      ) : null}
      {list.error ? (
        <p className="form-error" role="alert">
          {list.error}
        </p>
      ) : null}
      <section className="card" aria-labelledby="list-title">
        <div className="page-header">
          <h2 id="list-title">
            {list.data ? `${rows.length} dead letter${rows.length === 1 ? '' : 's'}` : 'Loading…'}
          </h2>
          <div className={styles.actions}>
            <button
              type="button"
              className="button-secondary"
              disabled={visibleSelected.length === 0}
              onClick={() => setPending({ action: 'replay', ids: visibleSelected })}
            >
              Replay selected ({visibleSelected.length})…
            </button>
            <button
              type="button"
              className="button-danger"
              disabled={visibleSelected.length === 0}
              onClick={() => setPending({ action: 'discard', ids: visibleSelected })}
            >
              Discard selected…
            </button>
          </div>
        </div>
        <DataTable
          label="Dead letters"
          testId="dead-letters-table"
          columns={deadLetterColumns}
          rows={rows}
          rowKey={(row) => row.id}
          rowData={(row) => ({ 'data-dead-letter': row.id, 'data-message-id': row.messageId ?? '' })}
          // Before the first answer the table stands empty rather than claiming there are none.
          empty={
            list.data ? (
              <p className="muted" data-testid="dead-letters-empty">
                No dead letters{tenantId || queue || errorText ? ' match these filters' : ''}.
              </p>
            ) : undefined
          }
        />
      </section>
      {detailId ? <DeadLetterDetail id={detailId} onClose={() => setDetailId(null)} /> : null}
      <section className="card" aria-labelledby="audit-title">
        <h2 id="audit-title">Recent admin actions</h2>
        <DataTable
          label="Recent admin actions"
          testId="audit-table"
          columns={AUDIT_COLUMNS}
          rows={audit.data ?? []}
          rowKey={(entry) => entry.id}
          rowData={(entry) => ({ 'data-audit-target': entry.targetId ?? '' })}
          empty={<p className="muted">None yet.</p>}
        />
      </section>
      {pending ? (
        <ActionDialog
          action={pending.action}
          count={pending.ids.length}
          onConfirm={(reason) => act(pending.action, pending.ids, reason)}
          onClose={() => setPending(null)}
        />
      ) : null}
    </>
  )
}
