import { getContact } from '@fairlane/db/queries/contacts'
import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { DateTime } from '@/components/date-time'
import { requireTenantSession } from '@/server/auth/session'
import { attributesText } from '@/server/contacts/contact-form'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import { deleteContactAction, unsubscribeContactAction, updateContactAction } from '../actions'
import { ContactForm } from '../contact-form'

export const metadata: Metadata = { title: 'Contact' }

const NOTICES: Record<string, string> = {
  created: 'Contact added.',
  saved: 'Changes saved.',
  unsubscribed: 'Unsubscribed: this contact will not receive campaigns any more.',
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
  const contact = await getContact(container().database.db, { tenantId: session.tenantId, contactId: id })
  if (!contact) notFound()
  const noticeText = notice ? NOTICES[notice] : undefined

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
        {contact.unsubscribedAt ? (
          <p>
            <span className="badge badge-failed">unsubscribed</span> since{' '}
            <DateTime value={contact.unsubscribedAt} />. Campaigns skip this contact. Only the contact can
            subscribe again (for example by signing up anew).
          </p>
        ) : (
          <form action={unsubscribeContactAction} className="form-inline">
            <input type="hidden" name="contactId" value={contact.id} />
            <p>
              <span className="badge badge-active">subscribed</span> Added{' '}
              <DateTime value={contact.createdAt} />.
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
