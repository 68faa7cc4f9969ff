import type { Metadata } from 'next'
import Link from 'next/link'
import { requireTenantSession } from '@/server/auth/session'
import { loadEditorData } from '@/server/campaigns/editor-data'
import { emptyTemplateValues } from '@/server/templates/editor-state'
import { TemplateEditor } from '../template-editor'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'New template' }

export default async function NewTemplatePage() {
  const session = await requireTenantSession()
  const { contacts, verifiedDomains } = await loadEditorData(session.tenantId)
  return (
    <>
      <div className="page-header">
        <h1>New template</h1>
        <Link href="/templates">Back to templates</Link>
      </div>
      <TemplateEditor initial={emptyTemplateValues()} contacts={contacts} verifiedDomains={verifiedDomains} />
    </>
  )
}
