import type { MessageRenderer } from '@fairlane/core/accept'
import type { Database } from '@fairlane/db'
import { findTemplateBySlug } from '@fairlane/db/queries/templates'
import { renderContent } from '@fairlane/mail/templates'

/** The renderer `acceptMessage` uses: built-in templates from the mail package, tenant templates from PostgreSQL. */
export function createMessageRenderer(db: Database): MessageRenderer {
  return {
    render: ({ tenantId, content }) =>
      renderContent(content, { loadTenantTemplate: (slug) => findTemplateBySlug(db, { tenantId, slug }) }),
  }
}
