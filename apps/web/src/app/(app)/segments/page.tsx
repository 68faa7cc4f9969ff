import { type AudienceCounts, formatFilter, type SegmentView } from '@fairlane/core'
import { countAudience } from '@fairlane/db/queries/audience'
import { campaignsUsingSegment, listSegments } from '@fairlane/db/queries/segments'
import type { Metadata } from 'next'
import Link from 'next/link'
import { type DataColumn, DataTable } from '@/components/data-table'
import { LocalTime } from '@/components/local-time'
import { requireTenantSession } from '@/server/auth/session'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import { SingleFieldForm } from '../lists/single-field-form'
import { deleteSegmentAction, renameSegmentAction } from './actions'

// Per-tenant and per-request: never prerendered at build time (which would build the container).
export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: 'Segments' }

type Search = { notice?: string; segment?: string }

/** A segment with how many it would reach now (counted per page view, as campaigns resolve it). */
interface SegmentRow {
  segment: SegmentView
  count: AudienceCounts | undefined
}

const SEGMENT_COLUMNS: DataColumn<SegmentRow>[] = [
  {
    header: 'Name',
    cell: ({ segment }) => (
      <SingleFieldForm
        action={renameSegmentAction}
        name="name"
        label={`Name of ${segment.name}`}
        submitLabel="Rename"
        hidden={{ segmentId: segment.id }}
        initialValue={segment.name}
        maxLength={100}
      />
    ),
  },
  {
    header: 'Filter',
    cell: ({ segment }) => {
      const text = formatFilter(segment.filter)
      return (
        <Link href={`/contacts?${new URLSearchParams({ filter: text }).toString()}`}>
          <code>{text}</code>
        </Link>
      )
    },
  },
  {
    header: 'Recipients now',
    cell: ({ count }) => (
      <>
        {(count?.recipients ?? 0).toLocaleString('en')}
        {count && count.unsubscribed + count.suppressed > 0 ? (
          <span className="muted">
            {' '}
            ({count.unsubscribed} unsubscribed, {count.suppressed} suppressed left out)
          </span>
        ) : null}
      </>
    ),
  },
  { header: 'Created', cell: ({ segment }) => <LocalTime value={segment.createdAt} /> },
  {
    header: 'Actions',
    cell: ({ segment }) => (
      <div className="form-inline">
        <Link href={`/campaigns/new?audience=segment:${segment.id}`} className="button-secondary">
          New campaign
        </Link>
        <form action={deleteSegmentAction}>
          <input type="hidden" name="segmentId" value={segment.id} />
          <button type="submit" className="button-danger" aria-label={`Delete ${segment.name}`}>
            Delete
          </button>
        </form>
      </div>
    ),
  },
]

export default async function SegmentsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const session = await requireTenantSession()
  const { notice, segment: noticeSegment } = await searchParams
  const { db } = container().database
  const tenantId = session.tenantId
  const segments = await listSegments(db, { tenantId })
  const counts = await Promise.all(
    segments.map((segment) => countAudience(db, { tenantId, listId: null, segmentId: segment.id })),
  )
  const blocking =
    notice === 'in-use' && noticeSegment && isUuid(noticeSegment)
      ? await campaignsUsingSegment(db, { tenantId, segmentId: noticeSegment })
      : []
  const blocked = segments.find((segment) => segment.id === noticeSegment)
  return (
    <>
      <div className="page-header">
        <h1>Segments</h1>
        <Link href="/contacts" className="button-secondary">
          Filter contacts
        </Link>
      </div>
      {notice === 'created' ? (
        <p className="notice" role="status">
          Segment saved. It is resolved whenever it is used: a campaign to it goes to whoever matches at its
          send time.
        </p>
      ) : null}
      {notice === 'deleted' ? (
        <p className="notice" role="status">
          Segment deleted. Its contacts are still in your contacts.
        </p>
      ) : null}
      {notice === 'in-use' ? (
        <p className="form-error" role="alert">
          {blocking.length === 0
            ? 'The segment could not be deleted; try again.'
            : `“${blocked?.name ?? 'This segment'}” is the audience of ${blocking
                .map((campaign) => `“${campaign.name}” (${campaign.status})`)
                .join(', ')}. Change their audience or cancel them first.`}
        </p>
      ) : null}
      <p className="muted">
        A segment is a saved attribute filter. Unlike a list, nobody is added to it: it is resolved each time
        it is used, so a campaign to a segment goes to the subscribed contacts who match it at its send time.
      </p>
      <DataTable
        label="Segments"
        columns={SEGMENT_COLUMNS}
        rows={segments.map((segment, index) => ({ segment, count: counts[index] }))}
        rowKey={(row) => row.segment.id}
        empty={
          <p>
            No segments yet. <Link href="/contacts">Filter your contacts</Link> by attribute (e.g. city =
            Berlin) and save the filter as a segment.
          </p>
        }
      />
    </>
  )
}
