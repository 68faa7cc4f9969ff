'use client'

import { useMemo, useState } from 'react'
import { StatusBadge } from '@/components/status-badge'
import styles from '../admin.module.css'
import { formatInstant } from '../format'
import { sendJson, usePolling } from '../use-polling'
import { ActionDialog, type DeadLetterAction } from './action-dialog'
import { DeadLetterDetail } from './dead-letter-detail'

interface DeadLetter {
  id: string
  queue: string | null
  messageId: string | null
  tenantId: string | null
  error: string
  attempts: number
  failedAt: string
}

interface AuditEntry {
  id: number
  actor: string
  action: string
  targetId: string | null
  reason: string | null
  createdAt: string
  messageStatus?: string | null
}

interface BulkResult {
  results: { id: string; ok: boolean; status: number; error?: { message: string } }[]
  succeeded: number
  failed: number
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
  const list = usePolling<DeadLetter[]>(`/api/admin/dlq?${query}`)
  // Names for the first 500 tenants (a page); any other shows its id.
  const tenants = usePolling<{ id: string; name: string }[]>('/api/admin/tenants?limit=500', 10_000)
  const audit = usePolling<AuditEntry[]>('/api/admin/audit?limit=10')
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
    let outcomes: BulkResult['results']
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
      const answer = await sendJson<BulkResult>(`/api/admin/dlq/${action}`, 'POST', { ids, reason })
      if (answer.status !== 200 || !answer.body)
        return answer.body?.error?.message ?? `The server answered ${answer.status}`
      outcomes = answer.body.results
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
        {rows.length === 0 && list.data ? (
          <p className="muted" data-testid="dead-letters-empty">
            No dead letters{tenantId || queue || errorText ? ' match these filters' : ''}.
          </p>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="dead-letters-table">
              <thead>
                <tr>
                  <th scope="col">
                    <span className="visually-hidden">Select</span>
                  </th>
                  <th scope="col">Failed at</th>
                  <th scope="col">Tenant</th>
                  <th scope="col">Lane</th>
                  <th scope="col">Error</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.id} data-dead-letter={row.id} data-message-id={row.messageId ?? ''}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Select dead letter ${row.id}`}
                        checked={selected.has(row.id)}
                        onChange={() => toggle(row.id)}
                      />
                    </td>
                    <td>{formatInstant(row.failedAt)}</td>
                    <td>{row.tenantId ? (names.get(row.tenantId) ?? row.tenantId) : '—'}</td>
                    <td>{row.queue ?? '—'}</td>
                    <td className={styles.error}>{row.error}</td>
                    <td>{row.attempts}</td>
                    <td>
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
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {detailId ? <DeadLetterDetail id={detailId} onClose={() => setDetailId(null)} /> : null}
      <section className="card" aria-labelledby="audit-title">
        <h2 id="audit-title">Recent admin actions</h2>
        {(audit.data ?? []).length === 0 ? (
          <p className="muted">None yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="audit-table">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">Action</th>
                  <th scope="col">Target</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Message now</th>
                </tr>
              </thead>
              <tbody>
                {(audit.data ?? []).map((entry) => (
                  <tr key={entry.id} data-audit-target={entry.targetId ?? ''}>
                    <td>{formatInstant(entry.createdAt)}</td>
                    <td>{entry.actor}</td>
                    <td>{entry.action}</td>
                    <td className={styles.error}>{entry.targetId ?? '—'}</td>
                    <td>{entry.reason ?? <span className="muted">none given</span>}</td>
                    <td data-testid="audit-message-status">
                      {entry.messageStatus ? <StatusBadge status={entry.messageStatus} /> : '—'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
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
