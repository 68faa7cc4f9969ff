import { AppError } from '../errors/app-error'
import type { StoredTemplate, TemplateStore } from './ports'

/** One of the tenant's templates by id or slug; another tenant's reads as missing (404). */
export async function getTemplate(
  query: { tenantId: string; ref: string },
  deps: { store: TemplateStore },
): Promise<StoredTemplate> {
  const template = await deps.store.findTemplate(query)
  if (template === null) throw templateNotFound(query.ref)
  return template
}

export function templateNotFound(ref: string): AppError {
  return new AppError('not_found', `No template with slug or id ${JSON.stringify(ref)}`)
}
