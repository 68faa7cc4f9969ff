import {
  DEFAULT_TEMPLATES_PAGE,
  MAX_TEMPLATES_PAGE,
  newTemplateSchema,
  templateChangeSchema,
  templatesQuerySchema,
} from '@fairlane/core'
import { z } from 'zod'
import { json, locationHeader, responses } from '../v1/openapi/operation-helpers'
import { templateDeletedResponse, templateResponse, templatesResponse } from '../v1/responses'
import {
  changeTemplate,
  deleteTemplateByRef,
  getTemplateByRef,
  getTemplates,
  postTemplate,
} from '../v1/templates'
import { declareRoute } from './define'

const requestSchemas = {
  newTemplate: newTemplateSchema.meta({ id: 'NewTemplateRequest' }),
  templateChange: templateChangeSchema.meta({ id: 'TemplateChangeRequest' }),
}

const refParam = {
  path: z.object({
    ref: z.string().meta({ description: 'The template’s slug or id', example: 'welcome' }),
  }),
}

/** The tenant's templates; `:ref` is a template's slug or id. */
export const templateRoutes = {
  listTemplates: declareRoute({
    method: 'GET',
    path: '/api/v1/templates',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => getTemplates(request, deps.api),
    openapi: {
      operationId: 'listTemplates',
      tags: ['Templates'],
      summary: 'List your templates',
      description: `By slug, without \`html\` and \`text\` (\`GET /api/v1/templates/{ref}\` has them), paged with \`cursor\` (the \`nextCursor\` of the page before; anything else is a 400 naming \`cursor\`) and \`limit\` (default ${DEFAULT_TEMPLATES_PAGE}, at most ${MAX_TEMPLATES_PAGE}).`,
      requestParams: { query: templatesQuerySchema },
      responses: responses(
        { '200': json(templatesResponse, 'A page of templates, by slug') },
        [400, 401, 429],
      ),
    },
  }),
  postTemplate: declareRoute({
    method: 'POST',
    path: '/api/v1/templates',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => postTemplate(request, deps.api),
    openapi: {
      operationId: 'createTemplate',
      tags: ['Templates'],
      summary: 'Create a template',
      description:
        'A slug of lowercase letters, digits and inner hyphens, unique per tenant (409), never `otp`, `password-reset` or `verify-email`; `html` and/or `text`, parsed as mustache (a syntax error is a 400 naming the field). A tenant holding `MAX_TEMPLATES_PER_TENANT` templates is refused (422) until it deletes one.',
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: requestSchemas.newTemplate,
            examples: {
              welcome: {
                summary: 'A welcome mail',
                value: { slug: 'welcome', subject: 'Welcome, {{name}}', html: '<p>Hello {{name}}!</p>' },
              },
            },
          },
        },
      },
      responses: responses(
        { '201': json(templateResponse, 'Created at version 1', locationHeader('template')) },
        [400, 401, 409, 413, 415, 422, 429],
      ),
    },
  }),
  getTemplate: declareRoute({
    method: 'GET',
    path: '/api/v1/templates/:ref',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { ref }, deps) => getTemplateByRef(request, ref, deps.api),
    openapi: {
      operationId: 'getTemplate',
      tags: ['Templates'],
      summary: 'A template',
      requestParams: refParam,
      responses: responses({ '200': json(templateResponse, 'Its current version') }, [401, 404, 429]),
    },
  }),
  patchTemplate: declareRoute({
    method: 'PATCH',
    path: '/api/v1/templates/:ref',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { ref }, deps) => changeTemplate(request, ref, deps.api, 'patch'),
    openapi: {
      operationId: 'changeTemplate',
      tags: ['Templates'],
      summary: 'Change part of a template',
      description:
        'Any of `name`, `subject`, `html`, `text` (`null` removes a part). The slug cannot change.',
      requestParams: refParam,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: requestSchemas.templateChange,
            examples: {
              subject: { summary: 'A new subject', value: { subject: 'Welcome aboard, {{name}}' } },
            },
          },
        },
      },
      responses: responses(
        { '200': json(templateResponse, 'The template') },
        [400, 401, 404, 413, 415, 422, 429],
      ),
    },
  }),
  putTemplate: declareRoute({
    method: 'PUT',
    path: '/api/v1/templates/:ref',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { ref }, deps) => changeTemplate(request, ref, deps.api, 'put'),
    openapi: {
      operationId: 'replaceTemplate',
      tags: ['Templates'],
      summary: 'Replace a template',
      description:
        'The whole template again, as for create (`slug` optional, and if given the template’s own); parts left out are removed.',
      requestParams: refParam,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: requestSchemas.newTemplate.partial({ slug: true }),
            examples: {
              whole: {
                summary: 'Text only from now on',
                value: { subject: 'Welcome', text: 'Hello {{name}}!' },
              },
            },
          },
        },
      },
      responses: responses(
        { '200': json(templateResponse, 'The template') },
        [400, 401, 404, 413, 415, 422, 429],
      ),
    },
  }),
  deleteTemplate: declareRoute({
    method: 'DELETE',
    path: '/api/v1/templates/:ref',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { ref }, deps) => deleteTemplateByRef(request, ref, deps.api),
    openapi: {
      operationId: 'deleteTemplate',
      tags: ['Templates'],
      summary: 'Delete a template',
      description:
        'Always allowed: accepted messages keep what they rendered, campaigns copy content. A message naming the slug afterwards is a 400.',
      requestParams: refParam,
      responses: responses({ '200': json(templateDeletedResponse, 'Deleted') }, [401, 404, 429]),
    },
  }),
}
