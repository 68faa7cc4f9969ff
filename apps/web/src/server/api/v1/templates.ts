import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  MAX_CAMPAIGN_HTML_BYTES,
  parseNewTemplate,
  parseTemplateChange,
  parseTemplateReplacement,
  type StoredTemplate,
  type TemplateDeps,
  type TemplateSummary,
  updateTemplate,
} from '@fairlane/core'
import { createSenderDomains } from '@fairlane/db/queries/senders'
import { createTemplateStore } from '@fairlane/db/queries/templates'
import { templateSyntaxError } from '@fairlane/mail/templates'
import { respond } from '../../http/errors'
import { readJsonBody } from '../../http/read-json-body'
import { type ApiDeps, authorizeApiCall } from './deps'
import type { TemplateResponse, TemplateSummaryResponse } from './responses'

/**
 * `/api/v1/templates`: a tenant's own templates, sent with `POST /api/v1/messages` and
 * `"template": "<slug>"`. `:ref` is the template's slug or id. Handlers only authorize, read and
 * answer; the rules are the use cases' in `@fairlane/core` (`templates/`).
 */

/** Room for the largest allowed HTML and text after JSON escaping; more is cut off while reading (413). */
export const MAX_TEMPLATE_BODY_BYTES = 2 * MAX_CAMPAIGN_HTML_BYTES

const NO_STORE = { 'cache-control': 'no-store' }

export type TemplateJson = TemplateResponse

function templateSummaryJson(template: TemplateSummary): TemplateSummaryResponse {
  return {
    id: template.id,
    slug: template.slug,
    name: template.name,
    subject: template.subject,
    from: template.from,
    replyTo: template.replyTo,
    version: template.version,
    createdAt: template.createdAt.toISOString(),
    updatedAt: template.updatedAt.toISOString(),
  }
}

function templateJson(template: StoredTemplate): TemplateResponse {
  return { ...templateSummaryJson(template), html: template.html, text: template.text }
}

function depsOf(deps: ApiDeps): TemplateDeps {
  return {
    store: createTemplateStore(deps.db),
    templates: { syntaxError: templateSyntaxError },
    domains: createSenderDomains(deps.db),
    limits: deps.tenantLimits.templates,
  }
}

/**
 * `GET /api/v1/templates?cursor=&limit=` → `{ items: [template without html and text], nextCursor? }`,
 * by slug; `GET /api/v1/templates/:ref` has the bodies.
 */
export function getTemplates(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const page = await listTemplates(
      { tenantId: caller.tenantId, query: Object.fromEntries(new URL(request.url).searchParams) },
      depsOf(deps),
    )
    return Response.json(
      {
        items: page.items.map(templateSummaryJson),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      },
      { headers: NO_STORE },
    )
  })
}

/** `POST /api/v1/templates` `{ slug, name?, subject, html?, text?, from?, replyTo? }` → `201` the template at version 1. */
export function postTemplate(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const body = await readJsonBody(request, MAX_TEMPLATE_BODY_BYTES)
    const template = await createTemplate(
      { tenantId: caller.tenantId, request: parseNewTemplate(body) },
      depsOf(deps),
    )
    return Response.json(templateJson(template), {
      status: 201,
      headers: { ...NO_STORE, location: `/api/v1/templates/${template.slug}` },
    })
  })
}

/** `GET /api/v1/templates/:ref` → the template's current version. */
export function getTemplateByRef(request: Request, ref: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const template = await getTemplate({ tenantId: caller.tenantId, ref }, depsOf(deps))
    return Response.json(templateJson(template), { headers: NO_STORE })
  })
}

/**
 * `PATCH /api/v1/templates/:ref` (any of name, subject, html, text) and `PUT` (the whole template,
 * parts left out removed) → the template; a content change answers the next `version`.
 */
export function changeTemplate(
  request: Request,
  ref: string,
  deps: ApiDeps,
  mode: 'patch' | 'put',
): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const body = await readJsonBody(request, MAX_TEMPLATE_BODY_BYTES)
    const { slug, change } =
      mode === 'put' ? parseTemplateReplacement(body) : { slug: null, change: parseTemplateChange(body) }
    const template = await updateTemplate({ tenantId: caller.tenantId, ref, change, slug }, depsOf(deps))
    return Response.json(templateJson(template), { headers: NO_STORE })
  })
}

/** `DELETE /api/v1/templates/:ref` → `{ deleted: true, slug, id }`; always allowed (see `deleteTemplate`). */
export function deleteTemplateByRef(request: Request, ref: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const template = await deleteTemplate({ tenantId: caller.tenantId, ref }, depsOf(deps))
    return Response.json({ deleted: true, id: template.id, slug: template.slug }, { headers: NO_STORE })
  })
}
