import type { DomainView } from '@fairlane/core'
import type { Metadata } from 'next'
import Link from 'next/link'
import { type DataColumn, DataTable } from '@/components/data-table'
import { LocalTime } from '@/components/local-time'
import { StatusBadge } from '@/components/status-badge'
import { authorize } from '@/server/auth/session'
import { AddDomainForm } from './add-domain-form'
import { domainUseCases } from './use-cases'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Domains' }

type SearchParams = Promise<{ notice?: string }>

const DOMAIN_COLUMNS: DataColumn<DomainView>[] = [
  { header: 'Domain', cell: (domain) => <Link href={`/domains/${domain.id}`}>{domain.name}</Link> },
  { header: 'Status', cell: (domain) => <StatusBadge status={domain.status} /> },
  { header: 'Why', cell: (domain) => domain.failureReason ?? <span className="muted">—</span> },
  { header: 'Added', cell: (domain) => <LocalTime value={domain.createdAt} /> },
]

/** The tenant's sending domains: add one, see which may send (verified) and why one may not. */
export default async function DomainsPage({ searchParams }: { searchParams: SearchParams }) {
  const { session } = await authorize('domains.manage')
  const { notice } = await searchParams
  const domains = await domainUseCases().list({ tenantId: session.tenantId })
  return (
    <>
      <div className="page-header">
        <h1>Domains</h1>
      </div>
      <p className="muted">
        Send from your own domain: add it, publish the DNS records Fairlane shows, and verify it. Mail from a
        verified domain is DKIM-signed for it; until then mail goes from Fairlane’s address with your company
        name.
      </p>
      {notice === 'deleted' ? (
        <p className="notice" role="status">
          The domain was deleted. You may remove its DNS records.
        </p>
      ) : null}
      <section className="card" aria-labelledby="add-domain">
        <h2 id="add-domain">Add a domain</h2>
        <AddDomainForm />
      </section>
      <section className="card" aria-labelledby="your-domains">
        <h2 id="your-domains">Your domains</h2>
        <DataTable
          label="Your domains"
          columns={DOMAIN_COLUMNS}
          rows={domains}
          rowKey={(domain) => domain.id}
          empty={<p className="muted">No domains yet.</p>}
        />
      </section>
    </>
  )
}
