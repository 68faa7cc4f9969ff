import { importCsvRows, MAX_CSV_BATCH_BYTES } from '@fairlane/core'
import { AppError, fieldIssues, validationFailed } from '@fairlane/core/errors'
import type { Database } from '@fairlane/db'
import { upsertContacts } from '@fairlane/db/queries/contacts'
import { addListMembersByEmail } from '@fairlane/db/queries/lists'
import { z } from 'zod'
import { respond } from '../http/errors'
import { readJsonBody } from '../http/read-json-body'
import { sameOrigin } from '../http/same-origin'
import type { Logger } from '../logger'

export interface ImportRowsDeps {
  db: Database
  logger: Logger
  /** The signed-in tenant, or null (answered 401: the browser shows "sign in again"). */
  tenantId(): Promise<string | null>
}

const batchSchema = z.strictObject({
  header: z.array(z.string().max(1000)).min(1).max(200),
  /** Optional: the list the imported contacts join. */
  listId: z.uuid('must be a list id').optional(),
  rows: z
    .array(z.strictObject({ line: z.int().min(2), cells: z.array(z.string().max(10_000)).max(1000) }))
    .max(2000),
})

/**
 * `POST /contacts/import/rows`: one batch of a CSV import from the importing browser, signed in by
 * session cookie. It must be JSON (`readJsonBody` refuses forms), which a cross-site page cannot send
 * without a CORS preflight, and a foreign Origin is refused outright: together that is the CSRF guard.
 */
export function postImportRows(request: Request, deps: ImportRowsDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    if (!sameOrigin(request)) throw new AppError('forbidden', 'Cross-site requests are not accepted')
    const tenantId = await deps.tenantId()
    if (tenantId === null) throw new AppError('unauthorized', 'Your session has ended; sign in again')
    const body = await readJsonBody(request, MAX_CSV_BATCH_BYTES)
    const parsed = batchSchema.safeParse(body)
    if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
    const result = await importCsvRows(
      { tenantId, header: parsed.data.header, rows: parsed.data.rows, listId: parsed.data.listId },
      {
        store: {
          upsertContacts: async (input) => {
            const { created, updated } = await upsertContacts(deps.db, input)
            return { created, updated }
          },
        },
        lists: {
          addToList: async (input) => {
            const result = await addListMembersByEmail(deps.db, input)
            return result === null ? null : { added: result.added }
          },
        },
      },
    )
    return Response.json(result, { headers: { 'cache-control': 'no-store' } })
  })
}
