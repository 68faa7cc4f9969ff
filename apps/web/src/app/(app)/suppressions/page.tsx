import {
  MAX_SUPPRESSION_CSV_BYTES,
  MAX_SUPPRESSION_DETAIL_LENGTH,
  MAX_SUPPRESSION_IMPORT_ROWS,
  MAX_SUPPRESSIONS_PER_REQUEST,
  SUPPRESSION_REASONS,
  type SuppressionEntry,
  type SuppressionPage,
} from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import { countSuppressionsByReason } from '@fairlane/db/queries/suppressions'
import type { Metadata } from 'next'
import Link from 'next/link'
import { type DataColumn, DataTable } from '@/components/data-table'
import { LocalTime } from '@/components/local-time'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { AddSuppressionsForm } from './add-form'
import { ImportSuppressions } from './import-form'
import { REASON_WORDS } from './reason-words'
import { RemoveSuppression } from './remove-dialog'
import styles from './suppressions.module.css'
import { suppressionUseCases } from './use-cases'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Suppressions' }

const PAGE_SIZE = 50

type Search = {
  email?: string
  reason?: string
  cursor?: string
  notice?: string
  address?: string
  count?: string
}

function href(params: Record<string, string | undefined>, path = '/suppressions'): string {
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value) query.set(key, value)
  const text = query.toString()
  return text ? `${path}?${text}` : path
}

function noticeOf(search: Search): string | null {
  const address = (search.address ?? '').slice(0, 254)
  if (search.notice === 'removed') {
    return `${address} was removed from the suppression list: mail to it will be sent again.`
  }
  if (search.notice === 'not-listed') return `${address} is not on the suppression list (any more).`
  if (search.notice === 'added') {
    const added = Math.max(0, Number.parseInt(search.count ?? '', 10) || 0)
    return `${added.toLocaleString('en')} address${added === 1 ? ' is' : 'es are'} suppressed (addresses already listed keep their entry).`
  }
  return null
}

/**
 * The tenant's suppression list: every address Fairlane will not mail, and why (the bounce's
 * diagnostic, the complaint, the unsubscribe, a note). Search by a part of the address, filter by
 * reason, remove one (after a confirmation saying why it was there), add by hand, import and export
 * CSV. The same use cases as `/api/v1/suppressions`.
 */
export default async function SuppressionsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const session = await requireTenantSession()
  const search = await searchParams
  const email = typeof search.email === 'string' ? search.email.slice(0, 254) : ''
  const reason = SUPPRESSION_REASONS.find((known) => known === search.reason) ?? ''
  const cursor = typeof search.cursor === 'string' ? search.cursor.slice(0, 400) : ''
  let page: SuppressionPage = { items: [] }
  let searchError: string | null = null
  try {
    page = await suppressionUseCases().list({
      tenantId: session.tenantId,
      query: { email, reason, cursor, limit: String(PAGE_SIZE) },
    })
  } catch (error) {
    if (!isAppError(error) || error.code !== 'validation_failed') throw error
    const issue = error.details?.[0]
    searchError =
      issue?.path === 'cursor'
        ? 'That page link is no longer valid; showing the first page instead.'
        : `The search ${issue?.message ?? 'is not valid'}.`
  }
  const counts = await countSuppressionsByReason(container().database.db, { tenantId: session.tenantId })
  const total = SUPPRESSION_REASONS.reduce((sum, known) => sum + counts[known], 0)
  const narrowed = email !== '' || reason !== ''
  const notice = noticeOf(search)
  const back = { email, reason }

  return (
    <>
      <div className="page-header">
        <h1>Suppressions</h1>
        <a href={href({ email, reason }, '/suppressions/export')} className="button-secondary" download>
          Export CSV{narrowed ? ' (this search)' : ''}
        </a>
      </div>
      <p className="muted">
        Addresses Fairlane will not mail. Hard bounces, spam complaints and addresses added by hand stop every
        lane; an unsubscribe stops campaign mail only.
      </p>
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      <dl className="stats" aria-label="Suppressed addresses by reason">
        {SUPPRESSION_REASONS.map((known) => (
          <div key={known}>
            <dt>{REASON_WORDS[known]}</dt>
            <dd data-testid={`suppressed-${known}`}>
              <Link href={href({ reason: known })}>{counts[known].toLocaleString('en')}</Link>
            </dd>
          </div>
        ))}
      </dl>
      <search>
        <form method="get" action="/suppressions" className="form-inline">
          <div className="field">
            <label htmlFor="suppression-search">Search by address</label>
            <span id="suppression-search-hint" className="hint">
              A part of the address, any case: a domain finds everyone there.
            </span>
            <input
              id="suppression-search"
              name="email"
              type="search"
              defaultValue={email}
              maxLength={254}
              aria-describedby="suppression-search-hint"
              spellCheck={false}
            />
          </div>
          <div className="field">
            <label htmlFor="suppression-reason">Reason</label>
            <select id="suppression-reason" name="reason" defaultValue={reason}>
              <option value="">Any reason</option>
              {SUPPRESSION_REASONS.map((known) => (
                <option key={known} value={known}>
                  {REASON_WORDS[known]}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="button-secondary">
            Search
          </button>
          {narrowed ? <Link href="/suppressions">Clear</Link> : null}
        </form>
      </search>
      {searchError ? (
        <p className="form-error" role="alert">
          {searchError}
        </p>
      ) : null}
      <section className="card" aria-labelledby="suppressed-heading">
        <h2 id="suppressed-heading">
          {narrowed ? 'Matching addresses' : 'Suppressed addresses'}{' '}
          <span className="muted">({total.toLocaleString('en')} in total)</span>
        </h2>
        <SuppressionTable page={page} narrowed={narrowed} back={back} />
        <nav className="pager" aria-label="Pages">
          {cursor ? <Link href={href({ email, reason })}>← First page</Link> : null}
          {page.nextCursor ? (
            <Link href={href({ email, reason, cursor: page.nextCursor })} rel="next">
              Next page →
            </Link>
          ) : null}
        </nav>
      </section>
      <div className={styles.sections}>
        <section className="card" aria-labelledby="add-heading">
          <h2 id="add-heading">Add addresses by hand</h2>
          <AddSuppressionsForm
            maxAddresses={MAX_SUPPRESSIONS_PER_REQUEST}
            maxDetail={MAX_SUPPRESSION_DETAIL_LENGTH}
          />
        </section>
        <section className="card" aria-labelledby="import-heading">
          <h2 id="import-heading">Import a CSV file</h2>
          <noscript>
            <p className="form-error">
              The import needs JavaScript. Without it, add addresses by hand or send the file to the API (POST
              /api/v1/suppressions/import).
            </p>
          </noscript>
          <ImportSuppressions maxBytes={MAX_SUPPRESSION_CSV_BYTES} maxRows={MAX_SUPPRESSION_IMPORT_ROWS} />
        </section>
      </div>
    </>
  )
}

function suppressionColumns(back: { email: string; reason: string }): DataColumn<SuppressionEntry>[] {
  return [
    { header: 'Email', rowHeader: true, className: styles.address, cell: (entry) => entry.email },
    {
      header: 'Reason',
      className: styles.nowrap,
      cell: (entry) => (
        <>
          {REASON_WORDS[entry.reason]}
          {entry.scope === 'marketing' ? <span className="muted"> (campaigns only)</span> : null}
        </>
      ),
    },
    {
      header: 'Detail',
      className: styles.detail,
      cell: (entry) => entry.detail ?? <span className="muted">—</span>,
    },
    { header: 'When', className: styles.nowrap, cell: (entry) => <LocalTime value={entry.createdAt} /> },
    {
      header: <span className="visually-hidden">Actions</span>,
      className: styles.nowrap,
      cell: (entry) => (
        <RemoveSuppression
          entry={{
            email: entry.email,
            reason: entry.reason,
            reasonWords: REASON_WORDS[entry.reason],
            detail: entry.detail,
            when: <LocalTime value={entry.createdAt} />,
          }}
          back={back}
        />
      ),
    },
  ]
}

function SuppressionTable({
  page,
  narrowed,
  back,
}: {
  page: SuppressionPage
  narrowed: boolean
  back: { email: string; reason: string }
}) {
  return (
    <DataTable
      label="Suppressed addresses"
      columns={suppressionColumns(back)}
      rows={page.items}
      rowKey={(entry) => entry.email}
      rowData={(entry) => ({ 'data-email': entry.email })}
      empty={<p>{narrowed ? 'No suppressed address matches.' : 'No address is suppressed.'}</p>}
    />
  )
}
