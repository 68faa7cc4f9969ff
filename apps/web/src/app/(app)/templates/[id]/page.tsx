import { findTemplate, listTemplateVersions } from '@fairlane/db/queries/templates'
import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { LocalTime } from '@/components/local-time'
import { requireTenantSession } from '@/server/auth/session'
import { loadEditorData } from '@/server/campaigns/editor-data'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import styles from '../../campaigns/campaigns.module.css'
import { deleteTemplateAction } from '../actions'
import { TemplateEditor } from '../template-editor'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Template' }

type Search = { notice?: string; version?: string; confirm?: string }

export default async function TemplatePage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>
  searchParams: Promise<Search>
}) {
  const session = await requireTenantSession()
  const { id } = await params
  const search = await searchParams
  const { db } = container().database
  // Another tenant's id reads as missing: a 404, never a hint that it exists.
  const template = isUuid(id) ? await findTemplate(db, { tenantId: session.tenantId, ref: id }) : null
  if (!template || template.id !== id) notFound()
  const [versions, { contacts, verifiedDomains }] = await Promise.all([
    listTemplateVersions(db, { tenantId: session.tenantId, templateId: template.id }),
    loadEditorData(session.tenantId),
  ])
  return (
    <>
      <div className="page-header">
        <h1>{template.name}</h1>
        <Link href="/templates">All templates</Link>
      </div>
      {search.notice === 'saved' ? (
        <p className="notice" role="status">
          Saved. Messages sent with “{template.slug}” now use version {template.version}; those already
          accepted keep what they said.
        </p>
      ) : null}
      <section className="card" aria-labelledby="about-title">
        <h2 id="about-title">About</h2>
        <dl className={styles.details}>
          <dt>Send it with</dt>
          <dd>
            <code>{`POST /api/v1/messages { "to": "…", "template": "${template.slug}", "variables": { … } }`}</code>
          </dd>
          <dt>Version</dt>
          <dd data-testid="template-version">
            {template.version} ({versions.length} {versions.length === 1 ? 'version' : 'versions'} saved)
          </dd>
        </dl>
        {versions.length > 1 ? (
          <details>
            <summary>Version history</summary>
            <ul>
              {versions.map((version) => (
                <li key={version.version}>
                  Version {version.version}, <LocalTime value={version.createdAt} />: {version.subject}
                </li>
              ))}
            </ul>
          </details>
        ) : null}
        <div className={styles.actions}>
          <Link href={`/campaigns/new?template=${template.id}`} className="button">
            Start a campaign from this template
          </Link>
          {search.confirm === 'delete' ? null : (
            <Link href={`/templates/${template.id}?confirm=delete`} className="button-danger">
              Delete…
            </Link>
          )}
        </div>
        {search.confirm === 'delete' ? (
          <form action={deleteTemplateAction} className={styles.actions}>
            <input type="hidden" name="templateId" value={template.id} />
            <p>
              Delete “{template.name}” and its {versions.length}{' '}
              {versions.length === 1 ? 'version' : 'versions'}? API calls naming “{template.slug}” will be
              refused. Campaigns started from it keep their own copy, and messages already accepted keep their
              content.
            </p>
            <button type="submit" className="button-danger">
              Yes, delete the template
            </button>
            <Link href={`/templates/${template.id}`}>No, keep it</Link>
          </form>
        ) : null}
      </section>
      <TemplateEditor
        templateId={template.id}
        initial={{
          slug: template.slug,
          name: template.name,
          subject: template.subject,
          html: template.html ?? '',
          text: template.text ?? '',
          from: template.from ?? '',
          replyTo: template.replyTo ?? '',
        }}
        contacts={contacts}
        verifiedDomains={verifiedDomains}
      />
    </>
  )
}
