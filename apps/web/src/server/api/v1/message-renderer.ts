import type { SenderChoice } from '@fairlane/core'
import type { MessageRenderer } from '@fairlane/core/accept'
import type { Database } from '@fairlane/db'
import { findTemplateBySlug } from '@fairlane/db/queries/templates'
import { findTenant } from '@fairlane/db/queries/tenants'
import { renderContent } from '@fairlane/mail/templates'

/** How long a process reuses a tenant's name for built-in mail; a renamed tenant shows within this. */
export const TENANT_NAME_TTL_MS = 60_000
const MAX_NAMES = 10_000

/**
 * The renderer `acceptMessage` uses: built-in templates from the mail package (naming the tenant when
 * the request gives no `appName`), tenant templates from PostgreSQL. Tenant names are read once a
 * minute per process at most, and only for built-in mail: login codes stay one query lighter.
 */
export function createMessageRenderer(db: Database, now: () => number = Date.now): MessageRenderer {
  const names = new Map<string, { name: Promise<string | null>; expiresAt: number }>()
  const tenantName = (tenantId: string): Promise<string | null> => {
    const cached = names.get(tenantId)
    if (cached && cached.expiresAt > now()) return cached.name
    if (names.size >= MAX_NAMES) names.clear()
    const name = findTenant(db, { tenantId }).then((tenant) => tenant?.name ?? null)
    names.set(tenantId, { name, expiresAt: now() + TENANT_NAME_TTL_MS })
    // A failed read is not remembered; the mail is still rendered, without the name.
    return name.catch(() => {
      names.delete(tenantId)
      return null
    })
  }
  return {
    async render({ tenantId, content }) {
      // A tenant template's saved From / Reply-To travel with what it rendered (the same row read).
      let sender: SenderChoice | undefined
      const outcome = await renderContent(content, {
        loadTenantTemplate: async (slug) => {
          const template = await findTemplateBySlug(db, { tenantId, slug })
          if (template) sender = { from: template.from, replyTo: template.replyTo }
          return template
        },
        senderName: () => tenantName(tenantId),
      })
      return outcome.ok && sender ? { ok: true, message: { ...outcome.message, sender } } : outcome
    },
  }
}
