import { upsertContacts } from '@fairlane/core'
import { upsertContacts as upsertContactRows } from '@fairlane/db/queries/contacts'
import { respond } from '../../http/errors'
import { readJsonBody } from '../../http/read-json-body'
import { type ApiDeps, authorizeApiCall } from './deps'
import type { ContactsUpsertedResponse } from './responses'

/**
 * 10,000 contacts of a typical size (an address, a name, a few attributes) are 1–2 MB of JSON; 5 MB
 * leaves room for attribute-heavy rows while keeping one request's memory bounded.
 */
export const MAX_CONTACTS_BODY_BYTES = 5 * 1024 * 1024

/**
 * `POST /api/v1/contacts` → `200 { created, updated }`. The whole body is validated before anything
 * is written (a 400 names each `contacts[i].field` and changes nothing); more than 10,000 entries
 * answer 413 naming the limit.
 */
export function postContacts(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const body = await readJsonBody(request, MAX_CONTACTS_BODY_BYTES)
    const counts = await upsertContacts(
      { tenantId: caller.tenantId, body },
      {
        store: {
          upsertContacts: async (input) => {
            const { created, updated } = await upsertContactRows(deps.db, input)
            return { created, updated }
          },
        },
      },
    )
    return Response.json(counts satisfies ContactsUpsertedResponse, {
      status: 200,
      headers: { 'cache-control': 'no-store' },
    })
  })
}
