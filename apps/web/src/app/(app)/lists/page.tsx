import { type ListView, listLists } from '@fairlane/db/queries/lists'
import type { Metadata } from 'next'
import Link from 'next/link'
import { type DataColumn, DataTable } from '@/components/data-table'
import { LocalTime } from '@/components/local-time'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { createListAction } from './actions'
import { SingleFieldForm } from './single-field-form'

export const metadata: Metadata = { title: 'Lists' }

const LIST_COLUMNS: DataColumn<ListView>[] = [
  { header: 'Name', cell: (list) => <Link href={`/lists/${list.id}`}>{list.name}</Link> },
  { header: 'Members', cell: (list) => list.memberCount.toLocaleString('en') },
  { header: 'Created', cell: (list) => <LocalTime value={list.createdAt} /> },
]

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
      <DataTable
        label="Lists"
        columns={LIST_COLUMNS}
        rows={lists}
        rowKey={(list) => list.id}
        empty={<p>No lists yet. A list is a group of contacts a campaign can be sent to.</p>}
      />
    </>
  )
}
