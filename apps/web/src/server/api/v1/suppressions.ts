import {
  addSuppressions,
  LANES,
  listSuppressions,
  removeSuppression,
  type SuppressionEntry,
  suppressionStops,
} from '@fairlane/core'
import { createSuppressionStore } from '@fairlane/db/queries/suppressions'
import { apiAudit, audited } from '../../audit/record-audit'
import { respond } from '../../http/errors'
import { readJsonBody } from '../../http/read-json-body'
import { exportSuppressionsCsv, importSuppressionsCsv } from '../../suppressions/suppressions-csv'
import { type ApiDeps, authorizeApiCall } from './deps'
import type { SuppressionEntryResponse } from './responses'

/** 1,000 addresses of at most 254 characters, quoted, and a detail, with room to spare. */
export const MAX_SUPPRESSIONS_BODY_BYTES = 512 * 1024

const NO_STORE = { 'cache-control': 'no-store' }

/**
 * One entry as the API shows it: the contract's `{ email, reason, createdAt, detail? }` plus `scope`
 * and the `lanes` it stops, so a client reading an unsubscribe sees at once that OTP mail still goes.
 */
export function entryView(entry: SuppressionEntry): SuppressionEntryResponse {
  return {
    email: entry.email,
    reason: entry.reason,
    scope: entry.scope,
    lanes: LANES.filter((lane) => suppressionStops(entry.scope, lane)),
    createdAt: entry.createdAt.toISOString(),
    ...(entry.detail !== null ? { detail: entry.detail } : {}),
  }
}

const queryOf = (request: Request) => Object.fromEntries(new URL(request.url).searchParams)

/** `GET /api/v1/suppressions?email=&reason=&scope=&cursor=&limit=` → `{ items, nextCursor? }`. */
export function getSuppressions(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const page = await listSuppressions(
      { tenantId: caller.tenantId, query: queryOf(request) },
      { store: createSuppressionStore(deps.db) },
    )
    return Response.json(
      { items: page.items.map(entryView), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) },
      { headers: NO_STORE },
    )
  })
}

/** `POST /api/v1/suppressions` `{ emails, scope?, detail? }` → `200 { items }`: each address's entry afterwards. */
export function postSuppressions(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const body = await readJsonBody(request, MAX_SUPPRESSIONS_BODY_BYTES)
    const items = await addSuppressions(
      { tenantId: caller.tenantId, body },
      { store: createSuppressionStore(deps.db) },
    )
    return Response.json({ items: items.map(entryView) }, { headers: NO_STORE })
  })
}

/**
 * `DELETE /api/v1/suppressions/:email[?scope=]` → `200 { items: [the entry removed] }` (its soft-bounce
 * count goes with it); 404 when the address is not listed, or is another tenant's.
 */
export function deleteSuppression(request: Request, email: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const removed = await removeSuppression(
      {
        tenantId: caller.tenantId,
        email,
        query: queryOf(request),
        audit: apiAudit(request, caller, audited.suppressionRemoved),
      },
      { store: createSuppressionStore(deps.db) },
    )
    return Response.json({ items: [entryView(removed)] }, { headers: NO_STORE })
  })
}

/**
 * `POST /api/v1/suppressions/import[?scope=]` with a `text/csv` body → `200` the import's report: counts,
 * and every row not imported with its line number and reason.
 */
export function postSuppressionsImport(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const report = await importSuppressionsCsv(request, { tenantId: caller.tenantId, db: deps.db })
    return Response.json(report, { headers: NO_STORE })
  })
}

/** `GET /api/v1/suppressions/export?email=&reason=&scope=` → `text/csv`, every matching entry. */
export function getSuppressionsExport(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    return exportSuppressionsCsv({
      tenantId: caller.tenantId,
      query: queryOf(request),
      db: deps.db,
      logger: deps.logger,
      now: deps.clock.now(),
    })
  })
}
