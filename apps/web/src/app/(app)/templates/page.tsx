import { listTemplates, type TemplatePage, type TemplateSummary } from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import { createTemplateStore } from '@fairlane/db/queries/templates'
import type { Metadata } from 'next'
import Link from 'next/link'
import { type DataColumn, DataTable } from '@/components/data-table'
import { LocalTime } from '@/components/local-time'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Templates' }

const PAGE_SIZE = 100

const TEMPLATE_COLUMNS: DataColumn<TemplateSummary>[] = [
  { header: 'Name', cell: (template) => <Link href={`/templates/${template.id}`}>{template.name}</Link> },
  { header: 'Slug', cell: (template) => <code>{template.slug}</code> },
  { header: 'Subject', cell: (template) => template.subject },
  { header: 'Version', cell: (template) => template.version },
  { header: 'Changed', cell: (template) => <LocalTime value={template.updatedAt} /> },
]

export default async function TemplatesPage({
  searchParams,
}: {
  searchParams: Promise<{ notice?: string; slug?: string; cursor?: string }>
}) {
  const session = await requireTenantSession()
  const search = await searchParams
  const cursor = typeof search.cursor === 'string' ? search.cursor.slice(0, 200) : ''
  const list = (from: string) =>
    listTemplates(
      { tenantId: session.tenantId, query: { cursor: from, limit: String(PAGE_SIZE) } },
      { store: createTemplateStore(container().database.db) },
    )
  // The light list (no bodies), a page at a time; a stale page link falls back to the first page.
  let page: TemplatePage
  let pageError: string | null = null
  try {
    page = await list(cursor)
  } catch (error) {
    if (!isAppError(error) || error.code !== 'validation_failed') throw error
    pageError = 'That page link is no longer valid; showing the first page instead.'
    page = await list('')
  }
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
      {pageError ? (
        <p className="notice" role="status">
          {pageError}
        </p>
      ) : null}
      <DataTable
        caption="Your templates, by slug"
        wrapClassName="card"
        columns={TEMPLATE_COLUMNS}
        rows={page.items}
        rowKey={(template) => template.id}
        empty={
          <p className="card">
            No templates yet. A template is content your code sends by slug with{' '}
            <code>POST /api/v1/messages</code> and <code>"template": "your-slug"</code>, and a starting point
            for campaigns.
          </p>
        }
      />
      <nav className="pager" aria-label="Pages">
        {cursor && !pageError ? <Link href="/templates">← First page</Link> : null}
        {page.nextCursor ? (
          <Link href={`/templates?${new URLSearchParams({ cursor: page.nextCursor })}`} rel="next">
            Next page →
          </Link>
        ) : null}
      </nav>
    </>
  )
}
