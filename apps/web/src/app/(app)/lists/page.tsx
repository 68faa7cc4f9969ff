import { listLists } from '@fairlane/db/queries/lists'
import type { Metadata } from 'next'
import Link from 'next/link'
import { DateTime } from '@/components/date-time'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { createListAction } from './actions'
import { SingleFieldForm } from './single-field-form'

export const metadata: Metadata = { title: 'Lists' }

export default async function ListsPage({ searchParams }: { searchParams: Promise<{ notice?: string }> }) {
  const session = await requireTenantSession()
  const { notice } = await searchParams
  const lists = await listLists(container().database.db, { tenantId: session.tenantId })
  return (
    <>
      <div className="page-header">
        <h1>Lists</h1>
      </div>
      {notice === 'deleted' ? (
        <p className="notice" role="status">
          List deleted. Its contacts are still in your contacts.
        </p>
      ) : null}
      <section className="card" aria-labelledby="new-list-heading">
        <h2 id="new-list-heading">New list</h2>
        <SingleFieldForm
          action={createListAction}
          name="name"
          label="List name"
          submitLabel="Create list"
          maxLength={100}
        />
      </section>
      {lists.length === 0 ? (
        <p>No lists yet. A list is a group of contacts a campaign can be sent to.</p>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-label="Lists">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Members</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {lists.map((list) => (
                <tr key={list.id}>
                  <td>
                    <Link href={`/lists/${list.id}`}>{list.name}</Link>
                  </td>
                  <td>{list.memberCount.toLocaleString('en')}</td>
                  <td>
                    <DateTime value={list.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  )
}
