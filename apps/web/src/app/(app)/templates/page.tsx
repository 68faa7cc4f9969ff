import type { StoredTemplate } from '@fairlane/core'
import { listTemplates } from '@fairlane/db/queries/templates'
import type { Metadata } from 'next'
import Link from 'next/link'
import { type DataColumn, DataTable } from '@/components/data-table'
import { LocalTime } from '@/components/local-time'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Templates' }

const TEMPLATE_COLUMNS: DataColumn<StoredTemplate>[] = [
  { header: 'Name', cell: (template) => <Link href={`/templates/${template.id}`}>{template.name}</Link> },
  { header: 'Slug', cell: (template) => <code>{template.slug}</code> },
  { header: 'Subject', cell: (template) => template.subject },
  { header: 'Version', cell: (template) => template.version },
  { header: 'Changed', cell: (template) => <LocalTime value={template.updatedAt} /> },
]

export default async function TemplatesPage({
  searchParams,
}: {
  searchParams: Promise<{ notice?: string; slug?: string }>
}) {
  const session = await requireTenantSession()
  const search = await searchParams
  const templates = await listTemplates(container().database.db, { tenantId: session.tenantId })
  return (
    <>
      <div className="page-header">
        <h1>Templates</h1>
        <Link href="/templates/new" className="button">
          New template
        </Link>
      </div>
      {search.notice === 'deleted' ? (
        <p className="notice" role="status">
          Template “{search.slug}” deleted. API sends naming it are now refused; campaigns started from it
          keep their copy.
        </p>
      ) : null}
      <DataTable
        caption="Your templates, by slug"
        wrapClassName="card"
        columns={TEMPLATE_COLUMNS}
        rows={templates}
        rowKey={(template) => template.id}
        empty={
          <p className="card">
            No templates yet. A template is content your code sends by slug with{' '}
            <code>POST /api/v1/messages</code> and <code>"template": "your-slug"</code>, and a starting point
            for campaigns.
          </p>
        }
      />
    </>
  )
}
