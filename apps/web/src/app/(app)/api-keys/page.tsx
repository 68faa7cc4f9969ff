import {
  type ApiKeyListing,
  countActiveApiKeys,
  findApiKey,
  listApiKeys,
} from '@fairlane/db/queries/api-keys'
import { listVerifiedDomainNames } from '@fairlane/db/queries/sending-domains'
import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { type DataColumn, DataTable } from '@/components/data-table'
import { DateTime } from '@/components/date-time'
import { StatusBadge } from '@/components/status-badge'
import { authorize } from '@/server/auth/session'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import { revokeKeyAction } from './actions'
import { CreateKeyForm } from './create-key-form'
import { SmtpSettings } from './smtp-settings'

export const metadata: Metadata = { title: 'API keys' }

/** Keys per page; revoked keys stay listed, so a tenant's list grows with every rotation. */
const PAGE_SIZE = 50

const KEY_COLUMNS: DataColumn<ApiKeyListing>[] = [
  { header: 'Name', cell: (key) => key.name },
  { header: 'Key', cell: (key) => <code>{key.prefix}…</code> },
  { header: 'Scope', cell: (key) => (key.scope === 'sending' ? 'Sending only' : 'Full access') },
  { header: 'Domain', cell: (key) => key.domain ?? <span className="muted">Any</span> },
  { header: 'Created', cell: (key) => <DateTime value={key.createdAt} /> },
  { header: 'Created by', cell: (key) => key.createdBy ?? <span className="muted">—</span> },
  { header: 'Last used', cell: (key) => <DateTime value={key.lastUsedAt} empty="Never" /> },
  { header: 'Status', cell: (key) => <StatusBadge status={key.revokedAt ? 'revoked' : 'active'} /> },
  {
    header: <span className="visually-hidden">Actions</span>,
    cell: (key) =>
      key.revokedAt ? null : (
        <Link href={`/api-keys?revoke=${key.id}`} aria-label={`Revoke ${key.name}`}>
          Revoke
        </Link>
      ),
  },
]

type SearchParams = Promise<Record<string, string | string[] | undefined>>

/**
 * Keys are listed by their visible prefix only. Revoking goes through a confirmation view
 * (`?revoke=<id>`) so it works without JavaScript; another tenant's id there is a 404.
 */
export default async function ApiKeysPage({ searchParams }: { searchParams: SearchParams }) {
  // Owners and admins only (others get the 403 page); an unverified email or a held tenant may look
  // and revoke, but the create form says why it is disabled.
  const { session, refusal } = await authorize('apiKeys.manage')
  const params = await searchParams
  const { database, config } = container()
  const { db } = database
  const revokeId = typeof params.revoke === 'string' ? params.revoke : undefined
  const confirming = revokeId
    ? isUuid(revokeId)
      ? await findApiKey(db, { tenantId: session.tenantId, keyId: revokeId })
      : null
    : undefined
  if (confirming === null) notFound()
  const after = typeof params.after === 'string' && isUuid(params.after) ? params.after : undefined
  const rows = await listApiKeys(db, { tenantId: session.tenantId, limit: PAGE_SIZE, after })
  const keys = rows.slice(0, PAGE_SIZE)
  const last = keys.at(-1)
  const nextHref = rows.length > PAGE_SIZE && last ? `/api-keys?after=${last.id}` : null
  const [active, domains] = await Promise.all([
    countActiveApiKeys(db, { tenantId: session.tenantId }),
    listVerifiedDomainNames(db, { tenantId: session.tenantId }),
  ])

  return (
    <>
      <div className="page-header">
        <h1>API keys</h1>
      </div>
      <p className="muted">
        Send mail with <code>Authorization: Bearer &lt;key&gt;</code> on <code>POST /api/v1/messages</code>. A{' '}
        <em>sending</em> key may only send messages and read their status; a key restricted to a domain sends
        only from it. All keys share one request limit; {active} of at most {config.MAX_API_KEYS_PER_TENANT}{' '}
        keys are active. Every call is described in the <Link href="/api-docs">API reference</Link>.
      </p>
      {params.revoked ? (
        <p className="notice" role="status">
          The key was revoked. Requests using it are refused within a few seconds.
        </p>
      ) : null}
      {params.missing ? (
        <p className="form-error" role="alert">
          That key does not exist or was already revoked.
        </p>
      ) : null}

      {confirming ? (
        <section className="card" aria-labelledby="confirm-revoke">
          <h2 id="confirm-revoke">Revoke “{confirming.name}”?</h2>
          <p>
            Anything still using <code>{confirming.prefix}…</code> will get 401 answers within a few seconds.
            This cannot be undone.
          </p>
          <form action={revokeKeyAction} className="form-inline">
            <input type="hidden" name="keyId" value={confirming.id} />
            <button type="submit" className="button-danger">
              Revoke key
            </button>
            <Link href="/api-keys" className="button-secondary">
              Cancel
            </Link>
          </form>
        </section>
      ) : null}

      <section className="card" aria-labelledby="create-key">
        <h2 id="create-key">Create a key</h2>
        <CreateKeyForm baseUrl={config.APP_URL} domains={domains} refusal={refusal?.message ?? null} />
      </section>

      <SmtpSettings
        endpoint={{
          host: config.SUBMISSION_HOST ?? new URL(config.APP_URL).hostname,
          port: config.SUBMISSION_PORT,
          tlsPort: config.SUBMISSION_TLS_PORT ?? null,
        }}
      />

      <section className="card" aria-labelledby="your-keys">
        <h2 id="your-keys">Your keys</h2>
        <DataTable
          label="Your keys"
          columns={KEY_COLUMNS}
          rows={keys}
          rowKey={(key) => key.id}
          empty={<p className="muted">{after ? 'No older keys.' : 'No keys yet.'}</p>}
        />
        <nav className="pager" aria-label="Key pages">
          {after ? <Link href="/api-keys">Newest</Link> : null}
          {nextHref ? <Link href={nextHref}>Older keys</Link> : null}
        </nav>
      </section>
    </>
  )
}
