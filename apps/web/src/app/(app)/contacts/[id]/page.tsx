import { MAX_RESUBSCRIBE_NOTE_LENGTH, type SuppressionEntry } from '@fairlane/core'
import { getContact } from '@fairlane/db/queries/contacts'
import { RESUBSCRIBE_ACTION } from '@fairlane/db/queries/resubscribe'
import { findSuppression } from '@fairlane/db/queries/suppressions'
import { listTenantAudit } from '@fairlane/db/queries/tenant-audit'
import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { LocalTime } from '@/components/local-time'
import { requireTenantSession } from '@/server/auth/session'
import { attributesText } from '@/server/contacts/contact-form'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import {
  deleteContactAction,
  resubscribeContactAction,
  unsubscribeContactAction,
  updateContactAction,
} from '../actions'
import { ContactForm } from '../contact-form'
import { ResubscribeForm } from './resubscribe-form'

export const metadata: Metadata = { title: 'Contact' }

const NOTICES: Record<string, string> = {
  created: 'Contact added.',
  saved: 'Changes saved.',
  unsubscribed:
    'Unsubscribed from campaigns. Messages they ask for, such as sign-in codes and password resets, still reach them.',
  resubscribed:
    'Resubscribed on their request: campaigns reach this contact again. Recorded in the audit log.',
  'resubscribed-still-suppressed':
    'Resubscribed on their request (recorded in the audit log), but the address is still suppressed on every lane: no mail reaches it until that entry is removed.',
  'already-subscribed': 'This contact is already subscribed: nothing was changed.',
}

const REASONS: Record<SuppressionEntry['reason'], string> = {
  'hard-bounce': 'the address bounced (hard bounce)',
  complaint: 'the person marked a message as spam',
  manual: 'it was added to the suppression list by hand',
  unsubscribe: 'the person unsubscribed',
}

export default async function ContactPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>
  searchParams: Promise<{ notice?: string; confirm?: string }>
}) {
  const session = await requireTenantSession()
  const { id } = await params
  const { notice, confirm } = await searchParams
  if (!isUuid(id)) notFound()
  // Another tenant's id reads as null here, so it gets the same 404 as an id that never existed.
  const { db } = container().database
  const contact = await getContact(db, { tenantId: session.tenantId, contactId: id })
  if (!contact) notFound()
  const [suppression, history] = await Promise.all([
    findSuppression(db, { tenantId: session.tenantId, email: contact.email }),
    listTenantAudit(db, {
      tenantId: session.tenantId,
      targetType: 'contact',
      targetId: contact.id,
      limit: 20,
    }),
  ])
  const noticeText = notice ? NOTICES[notice] : undefined
  // An unsubscribe shows as either (the flag, or a marketing-scoped entry added by the API).
  const unsubscribed = contact.unsubscribedAt !== null || suppression?.scope === 'marketing'

  return (
    <>
      <div className="page-header">
        <h1>{contact.email}</h1>
        <Link href="/contacts">Back to contacts</Link>
      </div>
      {noticeText ? (
        <p className="notice" role="status">
          {noticeText}
        </p>
      ) : null}
      <section className="card" aria-labelledby="status-heading">
        <h2 id="status-heading">Subscription</h2>
        {suppression?.scope === 'all' ? (
          <p role="note">
            <span className="badge badge-failed">suppressed on every lane</span> since{' '}
            <LocalTime value={suppression.createdAt} />: {REASONS[suppression.reason]}. No mail reaches this
            address, not even sign-in codes or password resets. Remove it with{' '}
            <code>DELETE /api/v1/suppressions/:email</code> once the address works again.
          </p>
        ) : null}
        {unsubscribed ? (
          <>
            <p>
              <span className="badge badge-failed">unsubscribed from campaigns</span> since{' '}
              <LocalTime value={contact.unsubscribedAt ?? suppression?.createdAt ?? contact.createdAt} />.
              Campaigns skip this contact. Messages they ask for, such as sign-in codes and password resets,
              still reach them.
            </p>
            {confirm === 'resubscribe' ? (
              <ResubscribeForm
                action={resubscribeContactAction}
                contactId={contact.id}
                maxNoteLength={MAX_RESUBSCRIBE_NOTE_LENGTH}
              />
            ) : (
              <p>
                If the person asks to receive campaigns again:{' '}
                <Link href={`/contacts/${contact.id}?confirm=resubscribe`} className="button-secondary">
                  Resubscribe (on their request)…
                </Link>
              </p>
            )}
          </>
        ) : (
          <form action={unsubscribeContactAction} className="form-inline">
            <input type="hidden" name="contactId" value={contact.id} />
            <p>
              <span className="badge badge-active">subscribed</span> Added{' '}
              <LocalTime value={contact.createdAt} />.
            </p>
            <button type="submit" className="button-secondary">
              Unsubscribe
            </button>
          </form>
        )}
        <p className="muted">
          Lists:{' '}
          {contact.lists.length === 0
            ? 'none'
            : contact.lists.map((list, index) => (
                <span key={list.id}>
                  {index > 0 ? ', ' : ''}
                  <Link href={`/lists/${list.id}`}>{list.name}</Link>
                </span>
              ))}
        </p>
      </section>
      {history.length > 0 ? (
        <section className="card" aria-labelledby="audit-heading">
          <h2 id="audit-heading">Audit log</h2>
          <ul>
            {history.map((entry) => (
              <li key={entry.id}>
                <LocalTime value={entry.createdAt} />:{' '}
                {entry.action === RESUBSCRIBE_ACTION ? 'resubscribed on their request' : entry.action} by{' '}
                {entry.actor}
                {entry.reason ? <> — “{entry.reason}”</> : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section className="card" aria-labelledby="edit-heading">
        <h2 id="edit-heading">Details</h2>
        <ContactForm
          action={updateContactAction}
          contactId={contact.id}
          initial={{
            values: {
              email: contact.email,
              name: contact.name ?? '',
              attributes: attributesText(contact.attributes),
            },
            errors: {},
          }}
          submitLabel="Save changes"
        />
      </section>
      <section className="card" aria-labelledby="delete-heading">
        <h2 id="delete-heading">Delete</h2>
        {confirm === 'delete' ? (
          <form action={deleteContactAction} className="form" aria-describedby="delete-warning">
            <input type="hidden" name="contactId" value={contact.id} />
            <p id="delete-warning" className="form-error" role="alert">
              Delete {contact.email} for good? This removes the contact from every list and cannot be undone.
              (To stop mailing someone, unsubscribing keeps the record of their choice.)
            </p>
            <div className="form-inline">
              <button type="submit" className="button-danger">
                Yes, delete this contact
              </button>
              <Link href={`/contacts/${contact.id}`}>Cancel</Link>
            </div>
          </form>
        ) : (
          <Link href={`/contacts/${contact.id}?confirm=delete`} className="button-secondary">
            Delete contact…
          </Link>
        )}
      </section>
    </>
  )
}
