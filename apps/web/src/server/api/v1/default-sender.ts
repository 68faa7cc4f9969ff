import { parseDefaultSender, type SenderChoice, setDefaultSender } from '@fairlane/core'
import {
  createDefaultSenderStore,
  createSenderDomains,
  findDefaultSender,
} from '@fairlane/db/queries/senders'
import { apiAudit, audited } from '../../audit/record-audit'
import { respond } from '../../http/errors'
import { readJsonBody } from '../../http/read-json-body'
import { type ApiDeps, authorizeApiCall } from './deps'
import type { DefaultSenderResponse } from './responses'

const MAX_BODY_BYTES = 4 * 1024
const NO_STORE = { 'cache-control': 'no-store' }

const json = (sender: SenderChoice): DefaultSenderResponse => ({ from: sender.from, replyTo: sender.replyTo })

/** `GET /api/v1/sender` → `{ from, replyTo }`: the tenant's default sender (nulls: the platform's). */
export function getDefaultSender(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const sender = await findDefaultSender(deps.db, { tenantId: caller.tenantId })
    return Response.json(json(sender), { headers: NO_STORE })
  })
}

/**
 * `PUT /api/v1/sender` `{ from, replyTo }` (null or "" clears; a field left out clears too: PUT is
 * the whole setting) → the setting as stored. A `from` not on a verified domain → 422 naming `from`;
 * a key restricted to a domain → 403 unless `from` is on it.
 * API calls see the change within the API key cache's few seconds.
 */
export function putDefaultSender(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const body = await readJsonBody(request, MAX_BODY_BYTES)
    const sender = await setDefaultSender(
      {
        tenantId: caller.tenantId,
        sender: parseDefaultSender(body),
        keyDomain: caller.domain,
        audit: apiAudit(request, caller, (set: SenderChoice) =>
          audited.defaultSenderSet(caller.tenantId, set),
        ),
      },
      { domains: createSenderDomains(deps.db), store: createDefaultSenderStore(deps.db) },
    )
    return Response.json(json(sender), { headers: NO_STORE })
  })
}
