import { createSegment, deleteSegment, formatFilter, renameSegment, type SegmentFilter } from '@fairlane/core'
import { AppError, validationFailed } from '@fairlane/core/errors'
import { countAudience } from '@fairlane/db/queries/audience'
import { createSegmentStore, getSegment, listSegments } from '@fairlane/db/queries/segments'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import { readJsonBody } from '../../http/read-json-body'
import { type ApiDeps, authorizeApiCall } from './deps'
import type { SegmentResponse } from './responses'

/** A name and at most 20 conditions of 100 values of 2,000 characters each, with room to spare. */
export const MAX_SEGMENT_BODY_BYTES = 512 * 1024

const NO_STORE = { 'cache-control': 'no-store' }

function segmentView(segment: {
  id: string
  name: string
  filter: SegmentFilter
  createdAt: Date
}): SegmentResponse {
  return {
    id: segment.id,
    name: segment.name,
    filter: segment.filter,
    text: formatFilter(segment.filter),
    createdAt: segment.createdAt.toISOString(),
  }
}

function segmentIdOf(id: string): string {
  if (!isUuid(id)) throw new AppError('not_found', `No segment with id ${JSON.stringify(id)}`)
  return id
}

/** `GET /api/v1/segments` → `{ items: [{ id, name, filter, text, createdAt }] }`. */
export function getSegments(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const segments = await listSegments(deps.db, { tenantId: caller.tenantId })
    return Response.json({ items: segments.map(segmentView) }, { headers: NO_STORE })
  })
}

/** `GET /api/v1/segments/:id` → the segment and `recipients`: its audience counted now. */
export function getSegmentById(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const segmentId = segmentIdOf(id)
    const segment = await getSegment(deps.db, { tenantId: caller.tenantId, segmentId })
    if (!segment) throw new AppError('not_found', `No segment with id ${JSON.stringify(id)}`)
    const audience = await countAudience(deps.db, { tenantId: caller.tenantId, listId: null, segmentId })
    return Response.json({ ...segmentView(segment), audience }, { headers: NO_STORE })
  })
}

/** `POST /api/v1/segments` `{ name, filter: { conditions } }` → `201` the segment. */
export function postSegment(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const body = await readJsonBody(request, MAX_SEGMENT_BODY_BYTES)
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw validationFailed([{ path: 'body', message: 'must be an object { "name", "filter" }' }])
    }
    const { name, filter, ...rest } = body as Record<string, unknown>
    const extra = Object.keys(rest)
    if (extra.length > 0) {
      throw validationFailed(extra.map((key) => ({ path: key, message: 'is not a recognized field' })))
    }
    const segment = await createSegment(
      { tenantId: caller.tenantId, name, filter },
      { store: createSegmentStore(deps.db) },
    )
    return Response.json(segmentView({ ...segment, createdAt: new Date() }), {
      status: 201,
      headers: { location: `/api/v1/segments/${segment.id}`, ...NO_STORE },
    })
  })
}

/** `PATCH /api/v1/segments/:id` `{ name }` → the segment (its filter never changes). */
export function patchSegment(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const segmentId = segmentIdOf(id)
    const body = await readJsonBody(request, MAX_SEGMENT_BODY_BYTES)
    const { name, ...rest } = (typeof body === 'object' && body !== null ? body : {}) as Record<
      string,
      unknown
    >
    const extra = Object.keys(rest)
    if (extra.length > 0) {
      throw validationFailed(
        extra.map((key) => ({
          path: key,
          message:
            key === 'filter' ? 'cannot change: save a new segment instead' : 'is not a recognized field',
        })),
      )
    }
    await renameSegment(
      { tenantId: caller.tenantId, segmentId, name },
      { store: createSegmentStore(deps.db) },
    )
    const segment = await getSegment(deps.db, { tenantId: caller.tenantId, segmentId })
    if (!segment) throw new AppError('not_found', `No segment with id ${JSON.stringify(id)}`)
    return Response.json(segmentView(segment), { headers: NO_STORE })
  })
}

/** `DELETE /api/v1/segments/:id` → `204`; `409` naming the campaigns while a scheduled or sending one uses it. */
export function removeSegment(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    await deleteSegment(
      { tenantId: caller.tenantId, segmentId: segmentIdOf(id) },
      { store: createSegmentStore(deps.db) },
    )
    return new Response(null, { status: 204, headers: NO_STORE })
  })
}
