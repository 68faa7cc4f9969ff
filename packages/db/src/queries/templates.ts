import type {
  SenderChoice,
  StoredTemplate,
  TemplateContent,
  TemplateInsert,
  TemplateStore,
  TemplateSummary,
  TemplateVersionSummary,
} from '@fairlane/core'
import { and, asc, count, desc, eq, gt, or, sql } from 'drizzle-orm'
import type { Executor } from '../client'
import { messages, templates, templateVersions, tenants } from '../schema'

const columns = {
  id: templates.id,
  slug: templates.slug,
  name: templates.name,
  subject: templates.subject,
  html: templates.html,
  text: templates.text,
  from: templates.fromAddress,
  replyTo: templates.replyTo,
  version: templates.version,
  createdAt: templates.createdAt,
  updatedAt: templates.updatedAt,
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The renderer's lookup for `POST /api/v1/messages` with `template: "<slug>"`. */
export async function findTemplateBySlug(
  db: Executor,
  query: { tenantId: string; slug: string },
): Promise<StoredTemplate | null> {
  const [row] = await db
    .select(columns)
    .from(templates)
    .where(and(eq(templates.tenantId, query.tenantId), eq(templates.slug, query.slug)))
  return row ?? null
}

/** By id when `ref` is one of the tenant's template ids, else by slug (a slug may look like a uuid). */
export async function findTemplate(
  db: Executor,
  query: { tenantId: string; ref: string },
): Promise<StoredTemplate | null> {
  const byRef = UUID.test(query.ref)
    ? or(eq(templates.id, query.ref), eq(templates.slug, query.ref))
    : eq(templates.slug, query.ref)
  const rows = await db
    .select(columns)
    .from(templates)
    .where(and(eq(templates.tenantId, query.tenantId), byRef))
  return rows.find((row) => row.id === query.ref) ?? rows[0] ?? null
}

const { html: _html, text: _text, ...summaryColumns } = columns

/** A page of the tenant's templates in slug order (`templates_tenant_slug_unique`), without their bodies. */
export function listTemplates(
  db: Executor,
  query: { tenantId: string; afterSlug?: string; limit: number },
): Promise<TemplateSummary[]> {
  return db
    .select(summaryColumns)
    .from(templates)
    .where(
      and(
        eq(templates.tenantId, query.tenantId),
        query.afterSlug === undefined ? undefined : gt(templates.slug, query.afterSlug),
      ),
    )
    .orderBy(asc(templates.slug))
    .limit(query.limit)
}

/**
 * `createTemplate` unless the tenant already holds `maxTemplates`: the count and the insert run under
 * a lock on the tenant's row (`no key update`, so its messages' foreign keys still pass), so
 * concurrent creations take turns and the cap holds exactly.
 */
export function createTemplateWithinLimit(
  db: Executor,
  input: Parameters<typeof createTemplate>[1] & { maxTemplates: number },
): Promise<TemplateInsert> {
  const { maxTemplates, ...template } = input
  return db.transaction(async (tx) => {
    await tx
      .select({ id: tenants.id })
      .from(tenants)
      .where(eq(tenants.id, input.tenantId))
      .for('no key update')
    const [held] = await tx
      .select({ count: count() })
      .from(templates)
      .where(eq(templates.tenantId, input.tenantId))
    const templateCount = held?.count ?? 0
    if (templateCount >= maxTemplates) return { kind: 'limit', count: templateCount }
    const created = await createTemplate(tx, template)
    return created === null ? { kind: 'slug_taken' } : { kind: 'created', template: created }
  })
}

/** The template and its version 1 in one transaction; null when the tenant already uses the slug. */
export function createTemplate(
  db: Executor,
  input: {
    tenantId: string
    slug: string
    name: string
    subject: string
    html?: string | null
    text?: string | null
    sender?: SenderChoice
  },
): Promise<StoredTemplate | null> {
  const { sender, ...fields } = input
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(templates)
      .values({
        ...fields,
        html: input.html ?? null,
        text: input.text ?? null,
        fromAddress: sender?.from ?? null,
        replyTo: sender?.replyTo ?? null,
        version: 1,
      })
      .onConflictDoNothing({ target: [templates.tenantId, templates.slug] })
      .returning(columns)
    if (!row) return null
    await tx.insert(templateVersions).values({
      tenantId: input.tenantId,
      templateId: row.id,
      version: 1,
      subject: row.subject,
      html: row.html,
      text: row.text,
    })
    return row
  })
}

/**
 * A new version takes the row's version + 1 in the UPDATE itself, so two concurrent saves get two
 * numbers (the row lock orders them) and the history's unique (template, version) never collides.
 * With `versionsKept`, the history is then trimmed to that many newest versions.
 */
export function updateTemplate(
  db: Executor,
  input: {
    tenantId: string
    templateId: string
    name: string
    content: TemplateContent | null
    sender?: SenderChoice | undefined
    versionsKept?: number | undefined
  },
): Promise<StoredTemplate | null> {
  return db.transaction(async (tx) => {
    const where = and(eq(templates.tenantId, input.tenantId), eq(templates.id, input.templateId))
    const { content, sender } = input
    const senderColumns = sender ? { fromAddress: sender.from, replyTo: sender.replyTo } : {}
    const [row] = await tx
      .update(templates)
      .set(
        content === null
          ? { name: input.name, ...senderColumns }
          : { name: input.name, ...senderColumns, ...content, version: sql`${templates.version} + 1` },
      )
      .where(where)
      .returning(columns)
    if (!row) return null
    if (content !== null) {
      await tx.insert(templateVersions).values({
        tenantId: input.tenantId,
        templateId: row.id,
        version: row.version,
        ...content,
      })
      if (input.versionsKept !== undefined) {
        await pruneTemplateVersions(tx, { tenantId: input.tenantId, template: row, keep: input.versionsKept })
      }
    }
    return row
  })
}

/**
 * Deletes the template's versions older than its newest `keep`, except those a message still in
 * PostgreSQL was rendered from: a message records its template's slug and version
 * (`messages.template`, `messages.template_version`; `messages_template_version_idx`), and its
 * version stays until the message goes (MESSAGE_RETENTION_DAYS). Run under the template row's lock,
 * so two saves never trim at once.
 */
export async function pruneTemplateVersions(
  db: Executor,
  input: { tenantId: string; template: { id: string; slug: string; version: number }; keep: number },
): Promise<number> {
  const { tenantId, template } = input
  const pruned = await db
    .delete(templateVersions)
    .where(
      and(
        eq(templateVersions.tenantId, tenantId),
        eq(templateVersions.templateId, template.id),
        sql`${templateVersions.version} <= ${template.version - input.keep}`,
        sql`not exists (
          select 1 from ${messages}
          where ${messages.tenantId} = ${tenantId}
            and ${messages.template} = ${template.slug}
            and ${messages.templateVersion} = ${templateVersions.version})`,
      ),
    )
    .returning({ version: templateVersions.version })
  return pruned.length
}

export async function deleteTemplate(
  db: Executor,
  query: { tenantId: string; templateId: string },
): Promise<boolean> {
  const rows = await db
    .delete(templates)
    .where(and(eq(templates.tenantId, query.tenantId), eq(templates.id, query.templateId)))
    .returning({ id: templates.id })
  return rows.length > 0
}

export function listTemplateVersions(
  db: Executor,
  query: { tenantId: string; templateId: string },
): Promise<TemplateVersionSummary[]> {
  return db
    .select({
      version: templateVersions.version,
      subject: templateVersions.subject,
      createdAt: templateVersions.createdAt,
    })
    .from(templateVersions)
    .where(
      and(eq(templateVersions.tenantId, query.tenantId), eq(templateVersions.templateId, query.templateId)),
    )
    .orderBy(desc(templateVersions.version))
}

export function createTemplateStore(db: Executor): TemplateStore {
  return {
    insertTemplate: (input) => createTemplateWithinLimit(db, input),
    findTemplate: (query) => findTemplate(db, query),
    listTemplates: (query) => listTemplates(db, query),
    updateTemplate: (input) => updateTemplate(db, input),
    deleteTemplate: (query) => deleteTemplate(db, query),
    listVersions: (query) => listTemplateVersions(db, query),
  }
}
