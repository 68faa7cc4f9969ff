import 'server-only'
import {
  addSuppressions,
  listSuppressions,
  removeSuppression,
  type SuppressionEntry,
  type SuppressionPage,
} from '@fairlane/core'
import { createSuppressionStore } from '@fairlane/db/queries/suppressions'
import { auditBy, audited } from '@/server/audit/record-audit'
import { currentAuditActor } from '@/server/auth/ui-audit-actor'
import { container } from '@/server/container'

/**
 * The suppression use cases for the Suppressions page and its actions, scoped by the tenant the
 * caller read from the session: the same functions, rules and errors as `/api/v1/suppressions`.
 */
export function suppressionUseCases() {
  const store = () => createSuppressionStore(container().database.db)
  return {
    list: (input: { tenantId: string; query: Record<string, string> }): Promise<SuppressionPage> =>
      listSuppressions(input, { store: store() }),
    add: (input: { tenantId: string; body: unknown }): Promise<SuppressionEntry[]> =>
      addSuppressions(input, { store: store() }),
    remove: async (input: { tenantId: string; email: string }): Promise<SuppressionEntry> => {
      const audit = auditBy(await currentAuditActor(), audited.suppressionRemoved)
      return removeSuppression({ ...input, query: {}, audit }, { store: store() })
    },
  }
}
