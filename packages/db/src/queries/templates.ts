import { and, eq } from 'drizzle-orm'
import type { Executor } from '../client'
import { templates } from '../schema'

export interface StoredTemplate {
  id: string
  slug: string
  subject: string
  html: string
  text: string | null
}

const columns = {
  id: templates.id,
  slug: templates.slug,
  subject: templates.subject,
  html: templates.html,
  text: templates.text,
}

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

export async function createTemplate(
  db: Executor,
  input: {
    tenantId: string
    slug: string
    name: string
    subject: string
    html: string
    text?: string | null
  },
): Promise<StoredTemplate> {
  const [row] = await db.insert(templates).values(input).returning(columns)
  if (!row) throw new Error('insert into templates returned no row')
  return row
}
