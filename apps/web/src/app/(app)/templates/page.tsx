import { listTemplates } from '@fairlane/db/queries/templates'
import type { Metadata } from 'next'
import Link from 'next/link'
import { DateTime } from '@/components/date-time'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Templates' }

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
      {templates.length === 0 ? (
        <p className="card">
          No templates yet. A template is content your code sends by slug with{' '}
          <code>POST /api/v1/messages</code> and <code>"template": "your-slug"</code>, and a starting point
          for campaigns.
        </p>
      ) : (
        <div className="table-wrap card">
          <table className="table">
            <caption className="visually-hidden">Your templates, by slug</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Slug</th>
                <th scope="col">Subject</th>
                <th scope="col">Version</th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {templates.map((template) => (
                <tr key={template.id}>
                  <td>
                    <Link href={`/templates/${template.id}`}>{template.name}</Link>
                  </td>
                  <td>
                    <code>{template.slug}</code>
                  </td>
                  <td>{template.subject}</td>
                  <td>{template.version}</td>
                  <td>
                    <DateTime value={template.updatedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  )
}
