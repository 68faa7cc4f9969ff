import { AppError, validationFailed } from '../errors/app-error'
import type { SegmentStore } from './ports'
import { parseSegmentFilter, type SegmentFilter } from './segment-filter'
import { validateSegmentName } from './segment-name'

const nameTaken = (name: string) =>
  new AppError('conflict', `You already have a segment named ${JSON.stringify(name)}`, {
    details: [{ path: 'name', message: 'is already used by another segment' }],
  })

/** Saves a filter under a name; the filter is validated again here whatever the caller checked. */
export async function createSegment(
  input: { tenantId: string; name: unknown; filter: unknown },
  deps: { store: Pick<SegmentStore, 'insertSegment'> },
): Promise<{ id: string; name: string; filter: SegmentFilter }> {
  const name = validateSegmentName(input.name)
  const issues = name.ok ? [] : [name.issue]
  let filter: SegmentFilter | null = null
  try {
    filter = parseSegmentFilter(input.filter)
  } catch (error) {
    if (!(error instanceof AppError) || !error.details) throw error
    issues.push(...error.details)
  }
  if (!name.ok || filter === null || issues.length > 0) throw validationFailed(issues)
  const result = await deps.store.insertSegment({ tenantId: input.tenantId, name: name.name, filter })
  if (result.kind === 'name_taken') throw nameTaken(name.name)
  return { id: result.id, name: name.name, filter }
}

/** Renames a segment; its filter never changes (campaigns that use it keep meaning the same people). */
export async function renameSegment(
  input: { tenantId: string; segmentId: string; name: unknown },
  deps: { store: Pick<SegmentStore, 'renameSegment'> },
): Promise<{ name: string }> {
  const name = validateSegmentName(input.name)
  if (!name.ok) throw validationFailed([name.issue])
  const result = await deps.store.renameSegment({ ...input, name: name.name })
  if (result === 'not_found') throw notFound(input.segmentId)
  if (result === 'name_taken') throw nameTaken(name.name)
  return { name: name.name }
}

/**
 * Deletes a segment. Refused (409, naming them) while a scheduled or sending campaign uses it: its
 * audience is resolved at send time, so the segment must outlive it. Drafts and finished campaigns
 * keep showing its name; a draft must choose another audience before it is scheduled.
 */
export async function deleteSegment(
  input: { tenantId: string; segmentId: string },
  deps: { store: Pick<SegmentStore, 'deleteSegment'> },
): Promise<void> {
  const result = await deps.store.deleteSegment(input)
  if (result.kind === 'not_found') throw notFound(input.segmentId)
  if (result.kind === 'in_use') {
    const names = result.campaigns.map((campaign) => `“${campaign.name}” (${campaign.status})`).join(', ')
    throw new AppError(
      'conflict',
      `This segment is the audience of ${result.campaigns.length === 1 ? 'a campaign' : 'campaigns'} not yet sent: ${names}. Change their audience or cancel them first.`,
      {
        details: result.campaigns.map((campaign) => ({
          path: `campaigns.${campaign.id}`,
          message: campaign.name,
        })),
      },
    )
  }
}

function notFound(segmentId: string): AppError {
  return new AppError('not_found', `No segment with id ${JSON.stringify(segmentId)}`)
}
