import { countContacts, searchContacts } from '@fairlane/db/queries/contacts'
import { listLists } from '@fairlane/db/queries/lists'
import type { Metadata } from 'next'
import Link from 'next/link'
import { DateTime } from '@/components/date-time'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { addMatchingToListAction } from './list-actions'

export const metadata: Metadata = { title: 'Contacts' }

const PAGE_SIZE = 50

const NOTICES: Record<string, string> = {
  deleted: 'Contact deleted.',
  'search-first': 'Search first: “add all matching” adds the contacts a search finds.',
  'choose-list': 'Choose one of your lists.',
}

type Search = { q?: string; after?: string; before?: string; notice?: string; added?: string }

function noticeOf(search: Search): string | undefined {
  if (search.notice === 'added-to-list') {
    const added = Math.max(0, Number.parseInt(search.added ?? '', 10) || 0)
    return `Added ${added.toLocaleString('en')} matching contact${added === 1 ? '' : 's'} to the list (those already on it are not counted).`
  }
  return search.notice ? NOTICES[search.notice] : undefined
}

function href(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value) query.set(key, value)
  const text = query.toString()
  return text ? `/contacts?${text}` : '/contacts'
}

export default async function ContactsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const session = await requireTenantSession()
  const search = await searchParams
  const { q, after, before } = search
  const query = typeof q === 'string' ? q.slice(0, 200) : ''
  const { db } = container().database
  const [page, total, lists] = await Promise.all([
    searchContacts(db, {
      tenantId: session.tenantId,
      query,
      after: typeof after === 'string' ? after : undefined,
      before: typeof before === 'string' ? before : undefined,
      limit: PAGE_SIZE,
    }),
    countContacts(db, { tenantId: session.tenantId }),
    listLists(db, { tenantId: session.tenantId }),
  ])
  const noticeText = noticeOf(search)

  return (
    <>
      <div className="page-header">
        <h1>Contacts</h1>
        <div className="form-inline">
          <Link href="/contacts/new" className="button">
            Add a contact
          </Link>
          <Link href="/contacts/import" className="button-secondary">
            Import CSV
          </Link>
        </div>
      </div>
      {noticeText ? (
        <p className="notice" role="status">
          {noticeText}
        </p>
      ) : null}
      <search>
        <form method="get" action="/contacts" className="form-inline">
          <div className="field">
            <label htmlFor="contact-search">Search by email or name</label>
            <input id="contact-search" name="q" type="search" defaultValue={query} maxLength={200} />
          </div>
          <button type="submit" className="button-secondary">
            Search
          </button>
          {query ? <Link href="/contacts">Clear</Link> : null}
        </form>
      </search>
      {query && page.contacts.length > 0 && lists.length > 0 ? (
        <form
          action={addMatchingToListAction}
          className="form-inline"
          aria-label="Add all matching contacts to a list"
        >
          <input type="hidden" name="q" value={query} />
          <div className="field">
            <label htmlFor="matching-list">Add every contact matching “{query}” to</label>
            <select id="matching-list" name="listId" defaultValue="">
              <option value="" disabled>
                Choose a list
              </option>
              {lists.map((list) => (
                <option key={list.id} value={list.id}>
                  {list.name}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="button-secondary">
            Add all matching
          </button>
        </form>
      ) : null}
      <p className="muted">
        {total.toLocaleString('en')} contact{total === 1 ? '' : 's'} in total
        {query ? `; showing those matching “${query}”` : ''}.
      </p>
      {page.contacts.length === 0 ? (
        <p>{query ? 'No contact matches this search.' : 'No contacts yet. Add one, or import a CSV file.'}</p>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-label="Contacts">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Lists</th>
                <th scope="col">Status</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {page.contacts.map((contact) => (
                <tr key={contact.id}>
                  <td>
                    <Link href={`/contacts/${contact.id}`}>{contact.email}</Link>
                  </td>
                  <td>{contact.name ?? <span className="muted">—</span>}</td>
                  <td>
                    {contact.lists.length === 0 ? (
                      <span className="muted">—</span>
                    ) : (
                      contact.lists.map((list) => list.name).join(', ')
                    )}
                  </td>
                  <td>
                    {contact.unsubscribedAt ? (
                      <span className="badge badge-failed">unsubscribed</span>
                    ) : (
                      <span className="badge badge-active">subscribed</span>
                    )}
                  </td>
                  <td>
                    <DateTime value={contact.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="pager" aria-label="Pages">
        {page.prevCursor ? (
          <Link href={href({ q: query, before: page.prevCursor })} rel="prev">
            ← Previous page
          </Link>
        ) : null}
        {page.nextCursor ? (
          <Link href={href({ q: query, after: page.nextCursor })} rel="next">
            Next page →
          </Link>
        ) : null}
      </nav>
    </>
  )
}
