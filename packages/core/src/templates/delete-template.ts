import { getTemplate, templateNotFound } from './get-template'
import type { StoredTemplate, TemplateStore } from './ports'

/**
 * Deletes a template and its versions. Always allowed: nothing holds a template in use. An accepted
 * message stores its rendered subject, HTML and text (the worker sends those, never the template),
 * and a campaign started from a template copies its content into the campaign. A message sent with
 * the slug afterwards is a 400 naming `template`.
 */
export async function deleteTemplate(
  query: { tenantId: string; ref: string },
  deps: { store: TemplateStore },
): Promise<StoredTemplate> {
  const template = await getTemplate(query, deps)
  if (!(await deps.store.deleteTemplate({ tenantId: query.tenantId, templateId: template.id }))) {
    throw templateNotFound(query.ref)
  }
  return template
}
