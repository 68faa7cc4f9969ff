'use client'

import { useState } from 'react'
import { type DataColumn, DataTable } from '@/components/data-table'
import type { ReputationJson } from '@/server/api/admin/reputation'
import { formatCount } from '../format'
import { sendJson, usePolling } from '../use-polling'

type GuardedTenant = ReputationJson['tenants'][number]

/** The guardrail acts within a minute of the rates; the section reads about as often. */
const GUARDRAIL_POLL_MS = 15_000

const STAGE_LABELS: Record<GuardedTenant['stage'], { label: string; badge: string }> = {
  ok: { label: 'OK', badge: 'badge-active' },
  warn: { label: 'Warned', badge: 'badge-scheduled' },
  slow: { label: 'Slowed', badge: 'badge-failed' },
  pause: { label: 'Paused', badge: 'badge-failed' },
}

const percent = (rate: number) => `${Number((rate * 100).toFixed(2))} %`

/**
 * A paused or slowed tenant resumed with a reason (`POST /api/admin/tenants/:id/resume`): the reason
 * is required and kept on both audit logs; a refusal is said next to the field.
 */
function ResumeForm({ tenant, onDone }: { tenant: GuardedTenant; onDone(message: string): void }) {
  const [reason, setReason] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const fieldId = `resume-reason-${tenant.id}`
  const errorId = `${fieldId}-error`
  return (
    <form
      className="inline-form"
      onSubmit={async (event) => {
        event.preventDefault()
        setBusy(true)
        const answer = await sendJson(`/api/admin/tenants/${tenant.id}/resume`, 'POST', { reason })
        setBusy(false)
        if (answer.status === 200) {
          setError(null)
          setReason('')
          onDone(`${tenant.name} is resumed: its campaigns send again, judged afresh from now.`)
          return
        }
        const field = answer.body?.error?.details?.find((issue) => issue.path === 'reason')
        setError(field?.message ?? answer.body?.error?.message ?? `The server answered ${answer.status}`)
      }}
    >
      <label htmlFor={fieldId}>Reason to resume {tenant.name}</label>
      <input
        id={fieldId}
        value={reason}
        maxLength={500}
        onChange={(event) => setReason(event.target.value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? errorId : undefined}
      />
      <button type="submit" className="button" disabled={busy}>
        Resume
      </button>
      {error ? (
        <span id={errorId} className="field-error">
          {error}
        </span>
      ) : null}
    </form>
  )
}

/**
 * The reputation guardrail's section of the Tenants page: the thresholds in force and every tenant it
 * warned, slowed or paused, the paused ones first, with why; a paused or slowed one can be resumed.
 */
export function GuardrailLive() {
  const { data, error, refresh } = usePolling<ReputationJson>('/api/admin/reputation', GUARDRAIL_POLL_MS)
  const [notice, setNotice] = useState<string | null>(null)
  const columns: DataColumn<GuardedTenant>[] = [
    { header: 'Tenant', rowHeader: true, cell: (tenant) => tenant.name },
    {
      header: 'Stage',
      cell: (tenant) => (
        <span className={`badge ${STAGE_LABELS[tenant.stage].badge}`} data-testid="guardrail-stage">
          {STAGE_LABELS[tenant.stage].label}
        </span>
      ),
    },
    { header: 'Why', cell: (tenant) => tenant.reason ?? '—' },
    {
      header: 'Since',
      cell: (tenant) => (tenant.changedAt ? new Date(tenant.changedAt).toLocaleString() : '—'),
    },
    {
      header: 'Action',
      cell: (tenant) =>
        tenant.stage === 'pause' || tenant.stage === 'slow' ? (
          <ResumeForm
            tenant={tenant}
            onDone={(message) => {
              setNotice(message)
              refresh()
            }}
          />
        ) : (
          <span className="muted">Lifts by itself when the rates fall</span>
        ),
    },
  ]
  return (
    <section className="card" aria-labelledby="guardrail-title" data-testid="guardrail">
      <h2 id="guardrail-title">Reputation guardrail</h2>
      {notice ? (
        <p className="notice" role="status" data-testid="guardrail-notice">
          {notice}
        </p>
      ) : null}
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {data ? (
        <>
          <p className="muted">
            Over 24 hours or 7 days, from {formatCount(data.thresholds.warn.minSent)} sends: warned at{' '}
            {percent(data.thresholds.warn.hardBounceRate)} hard bounces or{' '}
            {percent(data.thresholds.warn.complaintRate)} complaints; slowed (a quarter of its bulk share) at{' '}
            {percent(data.thresholds.slow.hardBounceRate)} or {percent(data.thresholds.slow.complaintRate)}
            {'; '}
            paused (its campaigns stop, its login codes go on) at{' '}
            {percent(data.thresholds.pause.hardBounceRate)} or {percent(data.thresholds.pause.complaintRate)}.
            Only a platform admin resumes a paused tenant.
          </p>
          <DataTable
            label="Tenants the guardrail acted on"
            columns={columns}
            rows={data.tenants}
            rowKey={(tenant) => tenant.id}
            rowData={(tenant) => ({ 'data-tenant': tenant.id })}
            empty={<p>No tenant is warned, slowed or paused.</p>}
          />
        </>
      ) : (
        <p>Loading…</p>
      )}
    </section>
  )
}
