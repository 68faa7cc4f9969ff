import type { SegmentFilter } from './segment-filter'

export interface SegmentView {
  id: string
  name: string
  filter: SegmentFilter
  createdAt: Date
}

/** A campaign that still has to resolve a segment (scheduled or being sent), named to the user. */
export interface CampaignUsingSegment {
  id: string
  name: string
  status: string
}

/** What the segment use cases need from PostgreSQL (`@fairlane/db/queries/segments`). */
export interface SegmentStore {
  insertSegment(input: {
    tenantId: string
    name: string
    filter: SegmentFilter
  }): Promise<{ kind: 'created'; id: string } | { kind: 'name_taken' }>
  renameSegment(input: {
    tenantId: string
    segmentId: string
    name: string
  }): Promise<'renamed' | 'not_found' | 'name_taken'>
  /**
   * Deletes it unless a campaign still to be sent uses it, in one transaction that locks the segment
   * row, so a campaign scheduled at the same moment either sees it gone or keeps it alive.
   */
  deleteSegment(input: {
    tenantId: string
    segmentId: string
  }): Promise<
    { kind: 'deleted' } | { kind: 'not_found' } | { kind: 'in_use'; campaigns: CampaignUsingSegment[] }
  >
}
