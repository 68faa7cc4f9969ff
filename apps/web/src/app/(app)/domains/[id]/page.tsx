import type { DomainView } from '@fairlane/core'
import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { LocalTime } from '@/components/local-time'
import { StatusBadge } from '@/components/status-badge'
import { authorize } from '@/server/auth/session'
import { isUuid } from '@/server/http/ids'
import { deleteDomainAction, rotateDkimAction, verifyDomainAction } from '../actions'
import { DomainActionForm } from '../domain-action-form'
import styles from '../domains.module.css'
import { domainUseCases } from '../use-cases'
import { DkimRotation } from './dkim-rotation'
import { RecordTable } from './record-table'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Domain' }

type Search = { notice?: string; confirm?: string; released?: string }

/** One domain: its status, the records to publish (with copy buttons), verify, rotate, delete. */
export default async function DomainPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>
  searchParams: Promise<Search>
}) {
  const { session } = await authorize('domains.manage')
  const { id } = await params
  const search = await searchParams
  // Another tenant's id reads as missing: a 404, never a hint that it exists.
  const domain = isUuid(id) ? await domainUseCases().get({ tenantId: session.tenantId, domainId: id }) : null
  if (!domain) notFound()
  return (
    <>
      <div className="page-header">
        <h1>{domain.name}</h1>
        <Link href="/domains">All domains</Link>
      </div>
      <Notice notice={search.notice} released={Number(search.released) || 0} domain={domain} />
      <section className="card" aria-labelledby="domain-status">
        <h2 id="domain-status">Status</h2>
        <p>
          <span data-testid="domain-status">
            <StatusBadge status={domain.status} />
          </span>{' '}
          {STATUS_TEXT[domain.status]}
        </p>
        {domain.failureReason ? (
          <p className="form-error" data-testid="failure-reason">
            {domain.failureReason}
          </p>
        ) : null}
        <dl className="details">
          <dt>Last checked</dt>
          <dd>
            <LocalTime value={domain.lastCheckedAt} empty="Not yet" />
          </dd>
          <dt>Next check</dt>
          <dd>
            <LocalTime value={domain.nextCheckAt} empty="None scheduled: verify after publishing" />
          </dd>
        </dl>
        <div className={styles.actions}>
          <DomainActionForm
            domainId={domain.id}
            action={verifyDomainAction}
            label="Verify now"
            pendingLabel="Looking up the records…"
          />
          <DomainActionForm
            domainId={domain.id}
            action={rotateDkimAction}
            label="Rotate DKIM key"
            pendingLabel="Making a new key…"
            className="button-secondary"
          />
          {search.confirm === 'delete' ? null : (
            <Link href={`/domains/${domain.id}?confirm=delete`} className="button-danger">
              Delete…
            </Link>
          )}
        </div>
      </section>
      {search.confirm === 'delete' ? (
        <section className="card" aria-labelledby="confirm-delete">
          <h2 id="confirm-delete">Delete {domain.name}?</h2>
          <p>
            Mail can no longer be sent from it, and its DKIM keys are destroyed. Refused while mail from it is
            still queued.
          </p>
          <div className={styles.actions}>
            <DomainActionForm
              domainId={domain.id}
              action={deleteDomainAction}
              label="Delete domain"
              pendingLabel="Deleting…"
              className="button-danger"
            />
            <Link href={`/domains/${domain.id}`} className="button-secondary">
              Cancel
            </Link>
          </div>
        </section>
      ) : null}
      <section className="card" aria-labelledby="dns-records">
        <h2 id="dns-records">DNS records</h2>
        <p className="muted">
          Publish these at your DNS provider, then verify. A long TXT value may be entered as it is: DNS
          providers split it into 255-character strings themselves.
        </p>
        <RecordTable records={domain.records} />
      </section>
      <section className="card" aria-labelledby="dkim-key">
        <h2 id="dkim-key">DKIM key</h2>
        <DkimRotation domain={domain} />
      </section>
    </>
  )
}

const STATUS_TEXT: Record<DomainView['status'], string> = {
  pending: 'Not usable as a sender until its required records verify.',
  verified: 'Mail from this domain is DKIM-signed for it.',
  failed: 'Mail from this domain is held until its records verify again.',
}

function Notice({
  notice,
  released,
  domain,
}: {
  notice: string | undefined
  released: number
  domain: DomainView
}) {
  if (notice === 'added') {
    return (
      <p className="notice" role="status">
        Domain added. Publish the required records below, then verify.
      </p>
    )
  }
  if (notice === 'rotated') {
    return (
      <p className="notice" role="status">
        A new DKIM key was made. Publish its record; the current key signs until it verifies.
      </p>
    )
  }
  if (notice !== 'checked') return null
  const missing = domain.records.filter((record) => record.required && record.status !== 'verified')
  return (
    <p className="notice" role="status" data-testid="verify-result">
      {missing.length === 0
        ? `Checked just now: ${domain.name} is ${domain.status}.`
        : `Checked just now: ${missing.length} required ${missing.length === 1 ? 'record is' : 'records are'} not verified yet (${missing.map((record) => record.name).join(', ')}).`}
      {released > 0 ? ` ${released} held ${released === 1 ? 'message goes' : 'messages go'} out now.` : null}
    </p>
  )
}
