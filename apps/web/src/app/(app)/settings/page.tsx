import { findDefaultSender, listVerifiedDomainNames } from '@fairlane/db/queries/senders'
import { findTrackingSettings } from '@fairlane/db/queries/tracking-settings'
import type { Metadata } from 'next'
import { authorize } from '@/server/auth/session'
import { container } from '@/server/container'
import { fromFieldHint } from '@/server/settings/from-hint'
import { SenderForm } from './sender-form'
import { TrackingForm } from './tracking-form'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Settings' }

/** The tenant's settings: its default sender, and open and click tracking. */
export default async function SettingsPage() {
  const { session } = await authorize('settings.manage')
  const { db } = container().database
  const [sender, domains, tracking] = await Promise.all([
    findDefaultSender(db, { tenantId: session.tenantId }),
    listVerifiedDomainNames(db, { tenantId: session.tenantId }),
    findTrackingSettings(db, { tenantId: session.tenantId }),
  ])
  return (
    <>
      <div className="page-header">
        <h1>Settings</h1>
      </div>
      {/* Not labelled by its heading: "Default sender" names exactly one thing, the field. */}
      <section className="card">
        <h2>Sender</h2>
        <p className="muted">
          Used by API messages, campaigns and templates that name no From of their own. It must be on one of
          your verified sending domains; if that domain later fails verification, its mail is held until it
          verifies again rather than sent unsigned.
        </p>
        <SenderForm
          initial={{ from: sender.from ?? '', replyTo: sender.replyTo ?? '' }}
          fromHint={fromFieldHint(domains)}
        />
      </section>
      <section className="card">
        <h2>Open and click tracking</h2>
        <p className="muted">
          Tracking adds a 1×1 image to HTML mail and sends its links through this platform, so you see opens
          and clicks per campaign. Each campaign has its own switches; these are the defaults of new ones. API
          messages are tracked only when they ask for it.
        </p>
        <TrackingForm initial={tracking} />
      </section>
    </>
  )
}
