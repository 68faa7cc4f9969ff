import type { TemplateChecker } from '../campaigns/ports'
import { AppError } from '../errors/app-error'
import { checkSenderDomain } from '../senders/check-sender-domain'
import type { SenderDomains } from '../senders/ports'
import { checkTemplateContent } from './check-template-content'
import type { StoredTemplate, TemplateLimits, TemplateStore } from './ports'
import type { NewTemplateRequest } from './template-request'

export interface TemplateDeps {
  store: TemplateStore
  templates: TemplateChecker
  /** A template's `from` must be on one of the tenant's verified domains when it is saved (422). */
  domains: SenderDomains
  /** How many templates a tenant may hold, and how many versions each keeps. */
  limits: TemplateLimits
}

/**
 * Creates a template as version 1. A slug the tenant already uses is a 409 naming `slug`; a tenant
 * holding `limits.maxTemplates` already is a 422 (delete one first).
 */
export async function createTemplate(
  input: { tenantId: string; request: NewTemplateRequest },
  deps: TemplateDeps,
): Promise<StoredTemplate> {
  const { request, tenantId } = input
  checkTemplateContent(request, deps.templates)
  if (request.sender.from !== null) await checkSenderDomain({ tenantId, from: request.sender.from }, deps)
  const inserted = await deps.store.insertTemplate({
    tenantId,
    ...request,
    maxTemplates: deps.limits.maxTemplates,
  })
  switch (inserted.kind) {
    case 'created':
      return inserted.template
    case 'slug_taken':
      throw new AppError(
        'conflict',
        `You already have a template with the slug ${JSON.stringify(request.slug)}`,
        { details: [{ path: 'slug', message: 'is already used by another of your templates' }] },
      )
    case 'limit':
      throw new AppError(
        'unprocessable',
        `This account already has ${inserted.count} templates, the most allowed (${deps.limits.maxTemplates}). Delete a template you no longer use, then create the new one.`,
      )
  }
}
