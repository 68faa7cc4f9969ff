import { findTemplate } from '@fairlane/db/queries/templates'
import { findTrackingSettings } from '@fairlane/db/queries/tracking-settings'
import type { Metadata } from 'next'
import Link from 'next/link'
import { requireTenantSession } from '@/server/auth/session'
import { loadEditorData } from '@/server/campaigns/editor-data'
import { type EditorValues, emptyValues } from '@/server/campaigns/editor-state'
import { sendRefusal } from '@/server/campaigns/send-refusal'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import { CampaignEditor } from '../campaign-editor'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'New campaign' }

/**
 * `?template=<id>` starts from one of the tenant's templates: its name, subject, HTML and text are
 * copied into the editor. The campaign keeps that copy, so later changes to the template (or its
 * deletion) do not change a campaign already written. `?audience=` ("Send a campaign to this segment")
 * picks the audience; only one the editor offers counts.
 */
export default async function NewCampaignPage({
  searchParams,
}: {
  searchParams: Promise<{ template?: string; audience?: string | string[] }>
}) {
  const session = await requireTenantSession()
  const { template: templateId } = await searchParams
  const template =
    templateId && isUuid(templateId)
      ? await findTemplate(container().database.db, { tenantId: session.tenantId, ref: templateId })
      : null
  const [data, tracking] = await Promise.all([
    loadEditorData(session.tenantId),
    findTrackingSettings(container().database.db, { tenantId: session.tenantId }),
  ])
  // A new campaign starts from the tenant's tracking defaults (the settings page).
  const defaults = { ...emptyValues(), trackOpens: tracking.trackOpens, trackClicks: tracking.trackClicks }
  const initial: EditorValues = template
    ? {
        ...defaults,
        name: template.name,
        from: template.from ?? '',
        replyTo: template.replyTo ?? '',
        subject: template.subject,
        html: template.html ?? '',
        text: template.text ?? '',
      }
    : defaults
  const { audience } = await searchParams
  const offered = new Set([
    ...data.lists.map((list) => list.id),
    ...data.segments.map((s) => `segment:${s.id}`),
  ])
  if (typeof audience === 'string' && offered.has(audience)) initial.audience = audience
  return (
    <>
      <div className="page-header">
        <h1>New campaign</h1>
        <Link href="/campaigns">Back to campaigns</Link>
      </div>
      {template ? (
        <p className="notice" role="status" data-testid="from-template">
          Started from the template “{template.name}” (version {template.version}). The campaign keeps its own
          copy.
        </p>
      ) : null}
      <CampaignEditor
        initial={initial}
        defaultTestAddress={session.email}
        sendRefusal={sendRefusal(session)}
        {...data}
      />
    </>
  )
}
