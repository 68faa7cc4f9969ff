import type { SenderChoice } from '../senders/ports'
import type { TemplateContent } from './template-request'

/**
 * A template as the use cases and the API see it: its current version's content, and the sender
 * (`from`, `replyTo`) of mail sent with it — a setting of the template, not part of its versions.
 */
export interface StoredTemplate extends TemplateContent, SenderChoice {
  id: string
  slug: string
  name: string
  /** The current version: 1 when created, +1 for each content change. */
  version: number
  createdAt: Date
  updatedAt: Date
}

export interface TemplateVersionSummary {
  version: number
  subject: string
  createdAt: Date
}

/** What the template use cases need from PostgreSQL (`@fairlane/db/queries/templates`). */
export interface TemplateStore {
  /** Inserts the template and its version 1 together; null, writing nothing, when the slug is taken. */
  insertTemplate(
    input: { tenantId: string; slug: string; name: string; sender: SenderChoice } & TemplateContent,
  ): Promise<StoredTemplate | null>
  /** By id when `ref` is one of this tenant's template ids, else by slug. */
  findTemplate(query: { tenantId: string; ref: string }): Promise<StoredTemplate | null>
  listTemplates(query: { tenantId: string }): Promise<StoredTemplate[]>
  /**
   * In one transaction: sets the name, and with `content` makes it the next version (the row's
   * version + 1, also written to the history). Null when the template no longer exists.
   */
  updateTemplate(input: {
    tenantId: string
    templateId: string
    name: string
    content: TemplateContent | null
    sender: SenderChoice
  }): Promise<StoredTemplate | null>
  /** False when there was nothing to delete. Its versions go with it. */
  deleteTemplate(query: { tenantId: string; templateId: string }): Promise<boolean>
  listVersions(query: { tenantId: string; templateId: string }): Promise<TemplateVersionSummary[]>
}
