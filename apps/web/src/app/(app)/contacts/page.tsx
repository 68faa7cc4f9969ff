import { parseFilterText } from '@fairlane/core'
import { type ContactView, countContacts, searchContacts } from '@fairlane/db/queries/contacts'
import { listLists } from '@fairlane/db/queries/lists'
import type { Metadata } from 'next'
import Link from 'next/link'
import { type DataColumn, DataTable } from '@/components/data-table'
import { LocalTime } from '@/components/local-time'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { SingleFieldForm } from '../lists/single-field-form'
import { SubscriptionBadge } from '../lists/subscription-badge'
import { createSegmentAction } from '../segments/actions'
import { addMatchingToListAction } from './list-actions'

export const metadata: Metadata = { title: 'Contacts' }

const PAGE_SIZE = 50

const NOTICES: Record<string, string> = {
  deleted: 'Contact deleted.',
  'search-first': 'Search or filter first: “add all matching” adds the contacts a search or filter finds.',
  'choose-list': 'Choose one of your lists.',
}

type Search = {
  q?: string
  filter?: string
  after?: string
  before?: string
  notice?: string
  added?: string
}

const MAX_FILTER_TEXT = 4000

function noticeOf(search: Search): string | undefined {
  if (search.notice === 'added-to-list') {
    const added = Math.max(0, Number.parseInt(search.added ?? '', 10) || 0)
    return `Added ${added.toLocaleString('en')} matching contact${added === 1 ? '' : 's'} to the list (those already on it are not counted).`
  }
  return search.notice ? NOTICES[search.notice] : undefined
}

const CONTACT_COLUMNS: DataColumn<ContactView>[] = [
  { header: 'Email', cell: (contact) => <Link href={`/contacts/${contact.id}`}>{contact.email}</Link> },
  { header: 'Name', cell: (contact) => contact.name ?? <span className="muted">—</span> },
  {
    header: 'Lists',
    cell: (contact) =>
      contact.lists.length === 0 ? (
        <span className="muted">—</span>
      ) : (
        contact.lists.map((list) => list.name).join(', ')
      ),
  },
  { header: 'Status', cell: (contact) => <SubscriptionBadge unsubscribedAt={contact.unsubscribedAt} /> },
  { header: 'Added', cell: (contact) => <LocalTime value={contact.createdAt} /> },
]

function contactsHref(params: Record<string, string | undefined>): string {
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
  const filterText = typeof search.filter === 'string' ? search.filter.slice(0, MAX_FILTER_TEXT).trim() : ''
  // A filter that does not parse is shown with its errors and not applied (never silently widened).
  const parsedFilter = filterText === '' ? null : parseFilterText(filterText)
  const filter = parsedFilter?.ok ? parsedFilter.filter : undefined
  const filterErrors =
    parsedFilter && !parsedFilter.ok ? parsedFilter.issues.map((issue) => issue.message) : []
  const narrowed = query !== '' || filter !== undefined
  const { db } = container().database
  const [page, total, matchingCount, lists] = await Promise.all([
    searchContacts(db, {
      tenantId: session.tenantId,
      query,
      filter,
      after: typeof after === 'string' ? after : undefined,
      before: typeof before === 'string' ? before : undefined,
      limit: PAGE_SIZE,
    }),
    countContacts(db, { tenantId: session.tenantId }),
    narrowed ? countContacts(db, { tenantId: session.tenantId, query, filter }) : Promise.resolve(null),
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
          <div className="field">
            <label htmlFor="contact-filter">Filter by attribute</label>
            <span id="contact-filter-hint" className="hint">
              Conditions joined by “and”: <code>city = Berlin</code>, <code>plan != free</code>,{' '}
              <code>plan in (pro, team)</code>, <code>vip exists</code>, <code>created after 2026-01-01</code>{' '}
              (UTC days). Values match exactly; quote one with a comma or “and” in it.
            </span>
            <input
              id="contact-filter"
              name="filter"
              type="search"
              defaultValue={filterText}
              maxLength={MAX_FILTER_TEXT}
              placeholder="city = Berlin and plan in (pro, team)"
              aria-invalid={filterErrors.length > 0 ? true : undefined}
              aria-describedby={
                filterErrors.length > 0 ? 'contact-filter-hint contact-filter-error' : 'contact-filter-hint'
              }
            />
            {filterErrors.length > 0 ? (
              <p id="contact-filter-error" className="field-error" role="alert">
                {filterErrors.join(' ')}
              </p>
            ) : null}
          </div>
          <button type="submit" className="button-secondary">
            Search
          </button>
          {query || filterText ? <Link href="/contacts">Clear</Link> : null}
        </form>
      </search>
      {filter ? (
        <section className="card" aria-labelledby="save-segment-heading">
          <h2 id="save-segment-heading">Save this filter as a segment</h2>
          <SingleFieldForm
            action={createSegmentAction}
            name="name"
            label="Segment name"
            hint="A campaign to a segment goes to whoever matches it at its send time (the text search is not part of it)."
            submitLabel="Save as segment"
            hidden={{ filter: filterText }}
            maxLength={100}
          />
        </section>
      ) : null}
      {narrowed && page.contacts.length > 0 && lists.length > 0 ? (
        <form
          action={addMatchingToListAction}
          className="form-inline"
          aria-label="Add all matching contacts to a list"
        >
          <input type="hidden" name="q" value={query} />
          {filter ? <input type="hidden" name="filter" value={filterText} /> : null}
          <div className="field">
            <label htmlFor="matching-list">
              Add every contact matching{' '}
              {[query ? `“${query}”` : '', filter ? 'the filter' : ''].filter(Boolean).join(' and ')} to
            </label>
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
        {narrowed ? (
          <span data-testid="matching-count">
            ; {(matchingCount ?? 0).toLocaleString('en')} match
            {query ? ` “${query}”` : ''}
            {query && filter ? ' and' : ''}
            {filter ? ' the filter' : ''}
          </span>
        ) : null}
        .
      </p>
      <DataTable
        label="Contacts"
        columns={CONTACT_COLUMNS}
        rows={page.contacts}
        rowKey={(contact) => contact.id}
        empty={<p>{narrowed ? 'No contact matches.' : 'No contacts yet. Add one, or import a CSV file.'}</p>}
      />
      <nav className="pager" aria-label="Pages">
        {page.prevCursor ? (
          <Link href={contactsHref({ q: query, filter: filterText, before: page.prevCursor })} rel="prev">
            ← Previous page
          </Link>
        ) : null}
        {page.nextCursor ? (
          <Link href={contactsHref({ q: query, filter: filterText, after: page.nextCursor })} rel="next">
            Next page →
          </Link>
        ) : null}
      </nav>
    </>
  )
}
