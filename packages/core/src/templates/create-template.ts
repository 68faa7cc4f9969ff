import type { TemplateChecker } from '../campaigns/ports'
import { AppError } from '../errors/app-error'
import { checkSenderDomain } from '../senders/check-sender-domain'
import type { SenderDomains } from '../senders/ports'
import { checkTemplateContent } from './check-template-content'
import type { StoredTemplate, TemplateStore } from './ports'
import type { NewTemplateRequest } from './template-request'

export interface TemplateDeps {
  store: TemplateStore
  templates: TemplateChecker
  /** A template's `from` must be on one of the tenant's verified domains when it is saved (422). */
  domains: SenderDomains
}

/** Creates a template as version 1. A slug the tenant already uses is a 409 naming `slug`. */
export async function createTemplate(
  input: { tenantId: string; request: NewTemplateRequest },
  deps: TemplateDeps,
): Promise<StoredTemplate> {
  const { request, tenantId } = input
  checkTemplateContent(request, deps.templates)
  if (request.sender.from !== null) await checkSenderDomain({ tenantId, from: request.sender.from }, deps)
  const created = await deps.store.insertTemplate({ tenantId, ...request })
  if (created === null) {
    throw new AppError(
      'conflict',
      `You already have a template with the slug ${JSON.stringify(request.slug)}`,
      {
        details: [{ path: 'slug', message: 'is already used by another of your templates' }],
      },
    )
  }
  return created
}
