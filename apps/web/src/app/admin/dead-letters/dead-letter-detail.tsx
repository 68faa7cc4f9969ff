'use client'

import { StatusBadge } from '@/components/status-badge'
import type { DeadLetterDetailJson } from '@/server/api/admin/dead-letter-detail'
import styles from '../admin.module.css'
import { formatInstant } from '../format'
import { usePolling } from '../use-polling'

/** One dead letter in full: the failure, the message's metadata (no body, no variable values), its history. */
export function DeadLetterDetail({ id, onClose }: { id: string; onClose(): void }) {
  const { data, error } = usePolling<DeadLetterDetailJson>(`/api/admin/dlq/${encodeURIComponent(id)}`, 5000)
  return (
    <section className="card" aria-labelledby="detail-title" data-testid="dead-letter-detail">
      <div className="page-header">
        <h2 id="detail-title">Dead letter {id}</h2>
        <button type="button" className="button-secondary" onClick={onClose}>
          Close
        </button>
      </div>
      {!data ? (
        <p className="muted">{error ?? 'Loading…'}</p>
      ) : (
        <dl className={styles.detail}>
          <dt>Error</dt>
          <dd data-testid="detail-error">{data.error}</dd>
          <dt>Attempts</dt>
          <dd>{data.attempts}</dd>
          <dt>Failed at</dt>
          <dd>{formatInstant(data.failedAt)}</dd>
          <dt>Dead-lettered at</dt>
          <dd>{formatInstant(data.deadLetteredAt)}</dd>
          <dt>Lane (job)</dt>
          <dd>
            {data.queue ?? '—'} <span className="muted">{data.laneJobId}</span>
          </dd>
          {data.message ? (
            <>
              <dt>Message</dt>
              <dd>
                {data.message.id} <StatusBadge status={data.message.status} />
              </dd>
              <dt>Tenant</dt>
              <dd>{data.message.tenantName}</dd>
              <dt>To</dt>
              <dd>{data.message.toAddress}</dd>
              <dt>What</dt>
              <dd>
                {data.message.campaignName
                  ? `Campaign “${data.message.campaignName}”`
                  : data.message.template
                    ? `Template ${data.message.template}`
                    : `Subject “${data.message.subject ?? ''}”`}
                {data.message.variableNames.length > 0
                  ? ` — variables ${data.message.variableNames.join(', ')} (values hidden)`
                  : ''}
              </dd>
              <dt>Last error (raw, admins only)</dt>
              <dd>{data.message.lastError ?? '—'}</dd>
              <dt>Tenant sees</dt>
              <dd>{data.message.lastErrorCode ?? '—'}</dd>
              <dt>Replays so far</dt>
              <dd>{data.message.generation}</dd>
              <dt>Created · queued</dt>
              <dd>
                {formatInstant(data.message.createdAt)} · {formatInstant(data.message.queuedAt)}
              </dd>
              <dt>Sent · failed</dt>
              <dd>
                {formatInstant(data.message.sentAt)} · {formatInstant(data.message.failedAt)}
              </dd>
            </>
          ) : (
            <>
              <dt>Message</dt>
              <dd>No longer in the database</dd>
            </>
          )}
          <dt>History</dt>
          <dd>
            {data.history.length === 0
              ? 'No admin action yet'
              : data.history.map((entry) => (
                  <div key={entry.id}>
                    {formatInstant(entry.createdAt)}: {entry.action} by {entry.actor}
                    {entry.reason ? ` — “${entry.reason}”` : ''}
                  </div>
                ))}
          </dd>
        </dl>
      )}
    </section>
  )
}
