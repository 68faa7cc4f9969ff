import { listReceivers, type ReceiverView } from '@fairlane/core/receivers'
import { tenantNames } from '@fairlane/db/queries/admin-messages'
import { listReceiverStates } from '@fairlane/db/queries/receiver-states'
import { loadReceiverRules, type ReceiverRules } from '@fairlane/delivery/receivers/rules'
import { receiverRatesFrom } from '@fairlane/delivery/shaping/receiver-rates'
import { createReceiverCounters } from '@fairlane/fairness'
import { authorizeAdmin } from '../../auth/admin-access'
import { respond } from '../../http/errors'
import type { AdminDeps } from './deps'
import { queueCall } from './queue-access'

/** The body of `GET /api/admin/receivers`, which the console's Receivers page reads. */
export type ReceiversJson = ReceiverView[]

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Each rules file read once per process (the worker reads its own at boot and refuses a bad one). */
const rulesByPath = new Map<string | undefined, ReceiverRules>()
function receiverRules(path: string | undefined): ReceiverRules {
  let rules = rulesByPath.get(path)
  if (!rules) {
    rules = path === undefined ? loadReceiverRules() : loadReceiverRules(path)
    rulesByPath.set(path, rules)
  }
  return rules
}

/**
 * `GET /api/admin/receivers` → `[{ provider, egress, ratePerMinute, ceilingPerMinute?, pausedUntil?,
 * attempts5m, throttled5m, deferred5m, tenants: [{ id, share, name? }], lastThrottledPerMinute?, lastReply?,
 * lastThrottledAt?, attempts60m, accepted60m, throttled60m, deferred60m, slowedTenants: [{ id,
 * name?, ratePerMinute, pausedUntil? }] }]` (CONTRACT.md, "Receivers", and the console's extensions): every
 * provider at every egress address with a stored state (`receiver_states`) or counts in the last hour
 * (the worker's counters in Redis), read afresh on each call.
 */
export function getReceivers(request: Request, deps: AdminDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    await authorizeAdmin(request, deps)
    const rules = receiverRules(deps.receiverRulesPath)
    const counters = createReceiverCounters(deps.redis, { prefix: `${deps.queuePrefix}:` })
    const receivers = await listReceivers({
      states: { list: () => listReceiverStates(deps.db) },
      counters: { read: (window) => queueCall(() => counters.read(window)) },
      rates: receiverRatesFrom(rules),
      // Counter fields are written by the worker; an id that is not a tenant's uuid names nobody.
      tenantNames: (ids) => tenantNames(deps.db, { tenantIds: ids.filter((id) => UUID.test(id)) }),
      clock: deps.clock,
    })
    return Response.json(receivers satisfies ReceiversJson, { headers: { 'cache-control': 'no-store' } })
  })
}
