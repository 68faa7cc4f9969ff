import type { StoredTemplate, TemplateStore } from './ports'

/** The tenant's templates, by slug. */
export function listTemplates(
  query: { tenantId: string },
  deps: { store: TemplateStore },
): Promise<StoredTemplate[]> {
  return deps.store.listTemplates(query)
}
