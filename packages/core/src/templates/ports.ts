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

/** A template in a list: everything but its bodies (`html`, `text`, up to 512 KB each); a page reads one by id. */
export type TemplateSummary = Omit<StoredTemplate, 'html' | 'text'>

/** What one tenant's templates may grow to (config). */
export interface TemplateLimits {
  /** MAX_TEMPLATES_PER_TENANT: creating one more is refused (422). */
  maxTemplates: number
  /**
   * TEMPLATE_VERSIONS_KEPT: a content change keeps this many newest versions (the current one
   * included) and deletes older ones, except those a message still in PostgreSQL was rendered from.
   */
  versionsKept: number
}

/** What `insertTemplate` did: the template at version 1, or why nothing was written. */
export type TemplateInsert =
  | { kind: 'created'; template: StoredTemplate }
  | { kind: 'slug_taken' }
  /** The tenant already holds `count` templates, at least `maxTemplates`. */
  | { kind: 'limit'; count: number }

export interface TemplateVersionSummary {
  version: number
  subject: string
  createdAt: Date
}

/** What the template use cases need from PostgreSQL (`@fairlane/db/queries/templates`). */
export interface TemplateStore {
  /**
   * Inserts the template and its version 1 together, unless the slug is taken or the tenant holds
   * `maxTemplates` already (decided under a lock on the tenant, so concurrent creations cannot both
   * pass the count); nothing is written then.
   */
  insertTemplate(
    input: {
      tenantId: string
      slug: string
      name: string
      sender: SenderChoice
      maxTemplates: number
    } & TemplateContent,
  ): Promise<TemplateInsert>
  /** By id when `ref` is one of this tenant's template ids, else by slug. */
  findTemplate(query: { tenantId: string; ref: string }): Promise<StoredTemplate | null>
  /** Up to `limit` templates in slug order, after `afterSlug` when given; without their bodies. */
  listTemplates(query: { tenantId: string; afterSlug?: string; limit: number }): Promise<TemplateSummary[]>
  /**
   * In one transaction: sets the name, and with `content` makes it the next version (the row's
   * version + 1, also written to the history) and trims the history to the newest `versionsKept`
   * (older versions a message was rendered from stay). Null when the template no longer exists.
   */
  updateTemplate(input: {
    tenantId: string
    templateId: string
    name: string
    content: TemplateContent | null
    sender: SenderChoice
    versionsKept: number
  }): Promise<StoredTemplate | null>
  /** False when there was nothing to delete. Its versions go with it. */
  deleteTemplate(query: { tenantId: string; templateId: string }): Promise<boolean>
  listVersions(query: { tenantId: string; templateId: string }): Promise<TemplateVersionSummary[]>
}
