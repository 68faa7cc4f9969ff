import { contactsNotInList, getList, type ListMemberView, listMembersPage } from '@fairlane/db/queries/lists'
import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { type DataColumn, DataTable } from '@/components/data-table'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import {
  addMembersByEmailAction,
  addSelectedContactsAction,
  deleteListAction,
  removeMemberAction,
  renameListAction,
} from '../actions'
import { SingleFieldForm } from '../single-field-form'
import { SubscriptionBadge } from '../subscription-badge'

export const metadata: Metadata = { title: 'List' }

const PAGE_SIZE = 50

type Search = { notice?: string; count?: string; q?: string; after?: string; confirm?: string }

function memberColumns(listId: string): DataColumn<ListMemberView>[] {
  return [
    { header: 'Email', cell: (member) => <Link href={`/contacts/${member.id}`}>{member.email}</Link> },
    { header: 'Name', cell: (member) => member.name ?? <span className="muted">—</span> },
    { header: 'Status', cell: (member) => <SubscriptionBadge unsubscribedAt={member.unsubscribedAt} /> },
    {
      header: <span className="visually-hidden">Actions</span>,
      cell: (member) => (
        <form action={removeMemberAction}>
          <input type="hidden" name="listId" value={listId} />
          <input type="hidden" name="contactId" value={member.id} />
          <button type="submit" className="link-button" aria-label={`Remove ${member.email} from the list`}>
            Remove
          </button>
        </form>
      ),
    },
  ]
}

function noticeText(search: Search): string | null {
  if (search.notice === 'created') return 'List created. Add contacts below.'
  if (search.notice === 'added') return `Added ${Number(search.count) || 0} contact(s).`
  if (search.notice === 'in-use') {
    return 'This list is the audience of a campaign, so it cannot be deleted. Change or delete that campaign first.'
  }
  if (search.notice === 'removed') return 'Removed from the list (the contact itself is kept).'
  return null
}

export default async function ListPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>
  searchParams: Promise<Search>
}) {
  const session = await requireTenantSession()
  const { id } = await params
  const search = await searchParams
  if (!isUuid(id)) notFound()
  const { db } = container().database
  const tenantId = session.tenantId
  // Another tenant's list id reads as null: the same 404 as an id that never existed.
  const list = await getList(db, { tenantId, listId: id })
  if (!list) notFound()
  const query = typeof search.q === 'string' ? search.q.slice(0, 200) : ''
  const [page, candidates] = await Promise.all([
    listMembersPage(db, { tenantId, listId: id, after: search.after, limit: PAGE_SIZE }),
    contactsNotInList(db, { tenantId, listId: id, query, limit: 25 }),
  ])
  const notice = noticeText(search)

  return (
    <>
      <div className="page-header">
        <h1>{list.name}</h1>
        <Link href="/lists">Back to lists</Link>
      </div>
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      <p>
        {list.memberCount.toLocaleString('en')} member{list.memberCount === 1 ? '' : 's'}.
      </p>

      <section className="card" aria-labelledby="members-heading">
        <h2 id="members-heading">Members</h2>
        <DataTable
          label="Members"
          columns={memberColumns(list.id)}
          rows={page.members}
          rowKey={(member) => member.id}
          empty={<p className="muted">No members yet.</p>}
        />
        <nav className="pager" aria-label="Member pages">
          {search.after ? <Link href={`/lists/${list.id}`}>← First page</Link> : null}
          {page.nextCursor ? (
            <Link href={`/lists/${list.id}?after=${encodeURIComponent(page.nextCursor)}`} rel="next">
              Next page →
            </Link>
          ) : null}
        </nav>
      </section>

      <section className="card" aria-labelledby="add-email-heading">
        <h2 id="add-email-heading">Add by email</h2>
        <SingleFieldForm
          action={addMembersByEmailAction}
          name="emails"
          label="Email addresses"
          hint="One or more of your contacts' addresses, separated by commas or new lines."
          submitLabel="Add to list"
          hidden={{ listId: list.id }}
          multiline
        />
      </section>

      <section className="card" aria-labelledby="choose-heading">
        <h2 id="choose-heading">Choose from contacts</h2>
        <search>
          <form method="get" action={`/lists/${list.id}`} className="form-inline">
            <div className="field">
              <label htmlFor="candidate-search">Find contacts not on this list</label>
              <input id="candidate-search" name="q" type="search" defaultValue={query} maxLength={200} />
            </div>
            <button type="submit" className="button-secondary">
              Search
            </button>
          </form>
        </search>
        {candidates.length === 0 ? (
          <p className="muted">
            {query ? 'No matching contact outside this list.' : 'Every contact is on this list.'}
          </p>
        ) : (
          <form action={addSelectedContactsAction}>
            <input type="hidden" name="listId" value={list.id} />
            <fieldset>
              <legend>Contacts (first {candidates.length})</legend>
              {candidates.map((contact) => (
                <div key={contact.id}>
                  <input type="checkbox" id={`pick-${contact.id}`} name="contactId" value={contact.id} />{' '}
                  <label htmlFor={`pick-${contact.id}`}>
                    {contact.email}
                    {contact.name ? ` (${contact.name})` : ''}
                  </label>
                </div>
              ))}
            </fieldset>
            <p>
              <button type="submit" className="button">
                Add selected
              </button>
            </p>
          </form>
        )}
      </section>

      <section className="card" aria-labelledby="rename-heading">
        <h2 id="rename-heading">Rename</h2>
        <SingleFieldForm
          action={renameListAction}
          name="name"
          label="List name"
          submitLabel="Rename"
          hidden={{ listId: list.id }}
          initialValue={list.name}
          maxLength={100}
        />
      </section>

      <section className="card" aria-labelledby="delete-list-heading">
        <h2 id="delete-list-heading">Delete</h2>
        {search.confirm === 'delete' ? (
          <form action={deleteListAction} className="form">
            <input type="hidden" name="listId" value={list.id} />
            <p className="form-error" role="alert">
              Delete the list “{list.name}”? Its {list.memberCount.toLocaleString('en')} contact(s) stay in
              your contacts.
            </p>
            <div className="form-inline">
              <button type="submit" className="button-danger">
                Yes, delete this list
              </button>
              <Link href={`/lists/${list.id}`}>Cancel</Link>
            </div>
          </form>
        ) : (
          <Link href={`/lists/${list.id}?confirm=delete`} className="button-secondary">
            Delete list…
          </Link>
        )}
      </section>
    </>
  )
}
