import {
  addSuppressionsRequestSchema,
  campaignRequestSchema,
  contactsRequestSchema,
  DEFAULT_TEMPLATES_PAGE,
  defaultSenderSchema,
  importSuppressionsQuerySchema,
  MAX_CONTACTS_PER_REQUEST,
  MAX_SEGMENT_NAME_LENGTH,
  MAX_SUPPRESSION_CSV_BYTES,
  MAX_SUPPRESSION_IMPORT_ROWS,
  MAX_SUPPRESSIONS_PER_REQUEST,
  MAX_TEMPLATES_PAGE,
  newDomainSchema,
  newTemplateSchema,
  SUPPRESSION_SCOPES,
  segmentFilterSchema,
  suppressionsFilterSchema,
  suppressionsQuerySchema,
  templateChangeSchema,
  templatesQuerySchema,
} from '@fairlane/core'
import {
  customMessageRequestSchema,
  IDEMPOTENCY_KEY_TTL_MS,
  templateMessageRequestSchema,
} from '@fairlane/core/accept'
import { otpVariables, passwordResetVariables } from '@fairlane/mail/templates'
import { z } from 'zod'
import type { oas31 } from 'zod-openapi'
import { createDocument, type ZodOpenApiPathsObject } from 'zod-openapi'
import {
  campaignCancelledResponse,
  campaignResponse,
  campaignScheduledResponse,
  contactsUpsertedResponse,
  defaultSenderResponse,
  domainResponse,
  domainsResponse,
  errorResponse,
  messageAcceptedResponse,
  messageResponse,
  segmentResponse,
  segmentsResponse,
  segmentWithAudienceResponse,
  suppressionImportResponse,
  suppressionRemovedResponse,
  suppressionsAddedResponse,
  suppressionsPageResponse,
  templateDeletedResponse,
  templateResponse,
  templatesResponse,
} from '../responses'
import { messageOperations } from './message-operations'
import { idParam, json, locationHeader, type Operation, responses } from './operation-helpers'
import { teamOperations, teamSchemas } from './team-operations'
import { usageOperations, usageResponse } from './usage-operations'
import { webhookOperations, webhookSchemas } from './webhook-operations'

/** The document as zod-openapi types it (OpenAPI 3.1 and 3.2 objects alike). */
export type OpenApiDocument = ReturnType<typeof createDocument>

/** The route table's spelling of an operation: `POST /api/v1/campaigns/:id/cancel`. */
export type RouteKey = `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /api/v1/${string}`

export const OPENAPI_PATH = '/api/v1/openapi.json'

const TAGS: oas31.TagObject[] = [
  {
    name: 'Messages',
    description: 'Transactional mail: login codes, password resets, your own templates and content.',
  },
  {
    name: 'Templates',
    description:
      'Your own content, sent by slug with `POST /api/v1/messages`; each content change is a new version.',
  },
  {
    name: 'Campaigns',
    description: 'Mail to your contacts or one list, at an instant or a local time in a zone.',
  },
  { name: 'Contacts', description: 'Your audience: upserted by email address.' },
  {
    name: 'Segments',
    description:
      'Saved contact filters, usable as a campaign audience (`segmentId`) and resolved at send time.',
  },
  {
    name: 'Suppressions',
    description:
      'Addresses not to mail: an unsubscribe stops campaign mail only; bounces, complaints and manual entries stop every lane.',
  },
  {
    name: 'Domains',
    description:
      'Domains you send from: the DNS records to publish (DKIM, return path, SPF and DMARC advice), their verification and DKIM key rotation.',
  },
  {
    name: 'Webhooks',
    description:
      'Endpoints that receive your events as signed POSTs (Standard Webhooks), their delivery log, test events and replays.',
  },
  {
    name: 'Team',
    description: 'Members, their roles, and invitations by email (owner, admin, member).',
  },
  {
    name: 'Usage',
    description: 'What you sent per day and lane, and your plan’s daily and monthly quotas.',
  },
  { name: 'Reference', description: 'This document.' },
]

const refParam = {
  path: z.object({
    ref: z.string().meta({ description: 'The template’s slug or id', example: 'welcome' }),
  }),
}

/**
 * Core's request schemas, named for the document. `.meta()` makes a documented copy (validation is
 * the same schema's) registered once per process; `unusedIO: 'input'` renders the built-in templates'
 * variables, which no body references directly, as what a client sends.
 */
const request = {
  template: templateMessageRequestSchema.meta({ id: 'TemplateMessageRequest' }),
  custom: customMessageRequestSchema.meta({ id: 'CustomMessageRequest' }),
  campaign: campaignRequestSchema.meta({ id: 'CampaignRequest' }),
  contacts: contactsRequestSchema.meta({ id: 'ContactsRequest' }),
  suppressions: addSuppressionsRequestSchema.meta({ id: 'AddSuppressionsRequest' }),
  newTemplate: newTemplateSchema.meta({ id: 'NewTemplateRequest' }),
  newDomain: newDomainSchema.meta({ id: 'NewDomainRequest' }),
  segment: z
    .strictObject({ name: z.string().min(1).max(MAX_SEGMENT_NAME_LENGTH), filter: segmentFilterSchema })
    .meta({ id: 'SegmentRequest' }),
  segmentRename: z
    .strictObject({ name: z.string().min(1).max(MAX_SEGMENT_NAME_LENGTH) })
    .meta({ id: 'SegmentRename' }),
  templateChange: templateChangeSchema.meta({ id: 'TemplateChangeRequest' }),
  defaultSender: defaultSenderSchema.meta({ id: 'DefaultSenderRequest' }),
  otpVariables: otpVariables.meta({ id: 'OtpVariables', unusedIO: 'input' }),
  passwordResetVariables: passwordResetVariables.meta({ id: 'PasswordResetVariables', unusedIO: 'input' }),
}

const messageRequest = z.union([request.template, request.custom]).meta({
  // The two are exclusive (a template request needs `template`, a custom one refuses it): oneOf says so.
  override: ({ jsonSchema }) => {
    jsonSchema.oneOf = jsonSchema.anyOf
    delete jsonSchema.anyOf
  },
})

function operations(now: Date): Record<RouteKey, Operation> {
  // The campaign examples are dated a year ahead, so an example request is never refused as past.
  const year = now.getUTCFullYear() + 1
  return {
    'POST /api/v1/messages': {
      operationId: 'sendMessage',
      tags: ['Messages'],
      summary: 'Send one message',
      description: [
        'A built-in template (`otp`, `password-reset`, `verify-email`: the `critical` lane, limited to 5 a minute per recipient),',
        'one of your template slugs, or your own `subject` with `html` and/or `text` (the `default` lane).',
        'The built-in templates take the variables in `OtpVariables` and `PasswordResetVariables`;',
        'a tenant template needs every variable it uses. Unknown fields are refused.',
        '`from` (on one of your verified sending domains, else 422) and `replyTo` are optional: without them the template’s, else your default sender, else the platform’s address with your name.',
      ].join(' '),
      requestParams: {
        header: z.object({
          'Idempotency-Key': z
            .string()
            .min(1)
            .max(255)
            .regex(/^[\x20-\x7e]+$/)
            .optional()
            .meta({
              description: `The same key with the same body within ${IDEMPOTENCY_KEY_TTL_MS / 3_600_000} hours answers the same message (with \`Idempotent-Replayed: true\`) instead of sending a second; with another body, 422.`,
              example: 'order-1234-receipt',
            }),
        }),
      },
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: messageRequest,
            examples: {
              otp: {
                summary: 'A login code',
                value: {
                  to: 'ada@example.com',
                  template: 'otp',
                  variables: { code: '482913', appName: 'Acme' },
                },
              },
              passwordReset: {
                summary: 'A password reset link',
                value: {
                  to: 'ada@example.com',
                  template: 'password-reset',
                  variables: { resetUrl: 'https://app.example.com/reset?token=abc123', expiresInMinutes: 30 },
                },
              },
              custom: {
                summary: 'Your own content',
                value: { to: 'ada@example.com', subject: 'Your receipt', text: 'Thanks for your order!' },
              },
            },
          },
        },
      },
      responses: responses(
        {
          '202': json(messageAcceptedResponse, 'Accepted and queued', {
            ...locationHeader('message'),
            'Idempotent-Replayed': {
              description: '`true` when this answers an earlier request with the same Idempotency-Key',
              schema: { type: 'string', enum: ['true'] },
            },
          }),
        },
        [400, 401, 413, 415, 422, 429],
      ),
    },
    'GET /api/v1/messages/:id': {
      operationId: 'getMessage',
      tags: ['Messages'],
      summary: 'A message’s status and what happened to it',
      description:
        'Its status now and its events in order, from `accepted` to `sent` (with the server’s reply) or `failed`, and what the receiving side reported later (`bounced`, `complained`).',
      requestParams: idParam('message'),
      responses: responses({ '200': json(messageResponse, 'The message') }, [401, 404, 429]),
    },
    'GET /api/v1/sender': {
      operationId: 'getDefaultSender',
      tags: ['Messages'],
      summary: 'Your default sender',
      description: 'The From and Reply-To of messages, campaigns and templates that name none.',
      responses: responses({ '200': json(defaultSenderResponse, 'The default sender') }, [401, 429]),
    },
    'PUT /api/v1/sender': {
      operationId: 'setDefaultSender',
      tags: ['Messages'],
      summary: 'Set or clear your default sender',
      description:
        'The whole setting: `from` on one of your verified sending domains (else 422), `replyTo` any address; null, "" or left out clears one. If the domain later fails verification, its mail is held until it verifies again.',
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: request.defaultSender,
            examples: {
              news: {
                summary: 'A named sender and a reply address',
                value: { from: '"Acme News" <news@example.com>', replyTo: 'support@example.com' },
              },
            },
          },
        },
      },
      responses: responses(
        { '200': json(defaultSenderResponse, 'The default sender as stored') },
        [400, 401, 413, 415, 422, 429],
      ),
    },
    'GET /api/v1/templates': {
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
    'POST /api/v1/templates': {
      operationId: 'createTemplate',
      tags: ['Templates'],
      summary: 'Create a template',
      description:
        'A slug of lowercase letters, digits and inner hyphens, unique per tenant (409), never `otp`, `password-reset` or `verify-email`; `html` and/or `text`, parsed as mustache (a syntax error is a 400 naming the field). A tenant holding `MAX_TEMPLATES_PER_TENANT` templates is refused (422) until it deletes one.',
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: request.newTemplate,
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
    'GET /api/v1/templates/:ref': {
      operationId: 'getTemplate',
      tags: ['Templates'],
      summary: 'A template',
      requestParams: refParam,
      responses: responses({ '200': json(templateResponse, 'Its current version') }, [401, 404, 429]),
    },
    'PATCH /api/v1/templates/:ref': {
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
            schema: request.templateChange,
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
    'PUT /api/v1/templates/:ref': {
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
            schema: request.newTemplate.partial({ slug: true }),
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
    'DELETE /api/v1/templates/:ref': {
      operationId: 'deleteTemplate',
      tags: ['Templates'],
      summary: 'Delete a template',
      description:
        'Always allowed: accepted messages keep what they rendered, campaigns copy content. A message naming the slug afterwards is a 400.',
      requestParams: refParam,
      responses: responses({ '200': json(templateDeletedResponse, 'Deleted') }, [401, 404, 429]),
    },
    'GET /api/v1/domains': {
      operationId: 'listDomains',
      tags: ['Domains'],
      summary: 'List your sending domains',
      responses: responses(
        { '200': json(domainsResponse, 'Every domain, by name, with its records') },
        [401, 429],
      ),
    },
    'POST /api/v1/domains': {
      operationId: 'addDomain',
      tags: ['Domains'],
      summary: 'Add a sending domain',
      description: [
        'Generates a 2048-bit DKIM key under a new selector and answers the DNS records to publish, all `pending`.',
        'The name must be a registrable domain or a name under one: an IP address, `localhost`, a public suffix',
        '(`co.uk`), a name over 253 characters or a label over 63 is a 400 naming `name`; a domain you already',
        'added is a 409. When another account already added the domain, an `ownership` TXT record is required too.',
        'An account holding `MAX_DOMAINS_PER_TENANT` domains is refused (422) until it deletes one.',
      ].join(' '),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: request.newDomain,
            examples: { domain: { summary: 'A domain', value: { name: 'example.com' } } },
          },
        },
      },
      responses: responses(
        { '201': json(domainResponse, 'Added, pending, with its records', locationHeader('domain')) },
        [400, 401, 409, 413, 415, 422, 429],
      ),
    },
    'GET /api/v1/domains/:id': {
      operationId: 'getDomain',
      tags: ['Domains'],
      summary: 'A sending domain',
      requestParams: idParam('domain'),
      responses: responses(
        { '200': json(domainResponse, 'The domain, its records as last checked') },
        [401, 404, 429],
      ),
    },
    'POST /api/v1/domains/:id/verify': {
      operationId: 'verifyDomain',
      tags: ['Domains'],
      summary: 'Check a domain’s records now',
      description:
        'Looks every record up now. A record is `verified`, `pending` (not found, or the lookup timed out) or `failed` (found but wrong: `found` says what). The domain is `verified` once its DKIM and return-path records (and the ownership record, when listed) verify. Fairlane also checks by itself: pending domains every 5 minutes for 72 hours, the others daily.',
      requestParams: idParam('domain'),
      responses: responses({ '200': json(domainResponse, 'The domain after the check') }, [401, 404, 429]),
    },
    'POST /api/v1/domains/:id/rotate-dkim': {
      operationId: 'rotateDomainDkim',
      tags: ['Domains'],
      summary: 'Rotate the DKIM key',
      description:
        'Adds a new key under a new selector and lists its record. Mail stays signed with the current key until the new record verifies; then the new key signs and the old record is listed with `removableAfter` (a week later). A 409 says why a rotation is not possible now (the first record is not verified yet, or a rotation is already waiting).',
      requestParams: idParam('domain'),
      responses: responses(
        { '200': json(domainResponse, 'The domain with the new record listed') },
        [401, 404, 409, 429],
      ),
    },
    'DELETE /api/v1/domains/:id': {
      operationId: 'deleteDomain',
      tags: ['Domains'],
      summary: 'Delete a sending domain',
      description:
        'Deletes the domain and its keys. While mail from it is still pending, queued, being sent or held, the answer is a 409 saying how many messages.',
      requestParams: idParam('domain'),
      responses: responses({ '200': json(domainResponse, 'The domain as it was') }, [401, 404, 409, 429]),
    },
    'POST /api/v1/campaigns': {
      operationId: 'scheduleCampaign',
      tags: ['Campaigns'],
      summary: 'Schedule a campaign',
      description: [
        'To all subscribed contacts, or to `listId`. `sendAt` is an ISO instant with a zone, or a wall time in an',
        'IANA zone (`fold` picks the earlier or later of a repeated hour). `subject`, `html` and `text` are mustache',
        'templates over each contact’s `name`, `email` and attributes. The audience is resolved at send time.',
      ].join(' '),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: request.campaign,
            examples: {
              localTime: {
                summary: 'At 09:00 in Berlin',
                value: {
                  name: 'Christmas news',
                  subject: 'Merry Christmas, {{name}}',
                  html: '<p>Hello {{name}}!</p>',
                  sendAt: { local: `${year}-12-24T09:00`, timeZone: 'Europe/Berlin' },
                },
              },
              instant: {
                summary: 'At an instant',
                value: {
                  name: 'Christmas news (UTC)',
                  subject: 'Merry Christmas',
                  html: '<p>Hello!</p>',
                  text: 'Hello!',
                  sendAt: `${year}-12-24T08:00:00Z`,
                },
              },
            },
          },
        },
      },
      responses: responses(
        { '201': json(campaignScheduledResponse, 'Scheduled', locationHeader('campaign')) },
        [400, 401, 404, 413, 415, 422, 429],
      ),
    },
    'GET /api/v1/campaigns/:id': {
      operationId: 'getCampaign',
      tags: ['Campaigns'],
      summary: 'A campaign’s status and counts',
      requestParams: idParam('campaign'),
      responses: responses({ '200': json(campaignResponse, 'The campaign') }, [401, 404, 429]),
    },
    'POST /api/v1/campaigns/:id/cancel': {
      operationId: 'cancelCampaign',
      tags: ['Campaigns'],
      summary: 'Cancel a campaign',
      description:
        'Holds back every message not yet handed to SMTP; what was sent stays sent. Cancelling again answers 200 and cancels nothing more; a campaign already sent answers 409.',
      requestParams: idParam('campaign'),
      responses: responses({ '200': json(campaignCancelledResponse, 'Cancelled') }, [401, 404, 409, 429]),
    },
    'POST /api/v1/contacts': {
      operationId: 'upsertContacts',
      tags: ['Contacts'],
      summary: 'Create or update contacts',
      description: `Up to ${MAX_CONTACTS_PER_REQUEST.toLocaleString('en')} contacts a call, matched by email (case-insensitive). Every entry is checked before anything is written: a 400 names each \`contacts[i].field\` and changes nothing. Attribute keys become template variables.`,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: request.contacts,
            examples: {
              two: {
                summary: 'Two contacts',
                value: {
                  contacts: [
                    {
                      email: 'ada@example.com',
                      name: 'Ada Lovelace',
                      attributes: { city: 'London', plan: 'pro' },
                    },
                    { email: 'grace@example.com' },
                  ],
                },
              },
            },
          },
        },
      },
      responses: responses({ '200': json(contactsUpsertedResponse, 'Upserted') }, [400, 401, 413, 415, 429]),
    },
    'GET /api/v1/segments': {
      operationId: 'listSegments',
      tags: ['Segments'],
      summary: 'List your segments',
      responses: responses({ '200': json(segmentsResponse, 'Every live segment') }, [401, 429]),
    },
    'POST /api/v1/segments': {
      operationId: 'createSegment',
      tags: ['Segments'],
      summary: 'Save a segment',
      description:
        'A name and a filter: conditions on attributes (`equals`, `not-equals`, `in`, `exists`; values compare as text, case matters) and the creation day (`created-before`, `created-after`, UTC), all of which must hold.',
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: request.segment,
            examples: {
              berlin: {
                summary: 'Pro and team customers in Berlin',
                value: {
                  name: 'Berlin customers',
                  filter: {
                    conditions: [
                      { op: 'equals', attribute: 'city', value: 'Berlin' },
                      { op: 'in', attribute: 'plan', values: ['pro', 'team'] },
                    ],
                  },
                },
              },
            },
          },
        },
      },
      responses: responses(
        { '201': json(segmentResponse, 'Saved', locationHeader('segment')) },
        [400, 401, 409, 413, 415, 429],
      ),
    },
    'GET /api/v1/segments/:id': {
      operationId: 'getSegment',
      tags: ['Segments'],
      summary: 'A segment and its audience now',
      requestParams: idParam('segment'),
      responses: responses({ '200': json(segmentWithAudienceResponse, 'The segment') }, [401, 404, 429]),
    },
    'PATCH /api/v1/segments/:id': {
      operationId: 'renameSegment',
      tags: ['Segments'],
      summary: 'Rename a segment',
      description: 'Only the name changes; a filter never does (save a new segment).',
      requestParams: idParam('segment'),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: request.segmentRename,
            examples: { rename: { summary: 'A new name', value: { name: 'Berlin (paying)' } } },
          },
        },
      },
      responses: responses({ '200': json(segmentResponse, 'The segment') }, [400, 401, 404, 409, 415, 429]),
    },
    'DELETE /api/v1/segments/:id': {
      operationId: 'deleteSegment',
      tags: ['Segments'],
      summary: 'Delete a segment',
      description: 'Refused (409, naming them) while a scheduled or sending campaign uses it.',
      requestParams: idParam('segment'),
      responses: responses({ '204': { description: 'Deleted' } }, [401, 404, 409, 429]),
    },
    'GET /api/v1/suppressions': {
      operationId: 'listSuppressions',
      tags: ['Suppressions'],
      summary: 'List suppressed addresses',
      description:
        'In address order, paged with `cursor` (the `nextCursor` of the page before; anything else is a 400 naming `cursor`). `email` finds the addresses containing it, any case (`example.com`: everyone at that domain); filter by `reason` or `scope`. An unknown parameter is a 400 naming it.',
      requestParams: { query: suppressionsQuerySchema },
      responses: responses({ '200': json(suppressionsPageResponse, 'A page of entries') }, [400, 401, 429]),
    },
    'POST /api/v1/suppressions': {
      operationId: 'addSuppressions',
      tags: ['Suppressions'],
      summary: 'Suppress addresses',
      description: `Up to ${MAX_SUPPRESSIONS_PER_REQUEST.toLocaleString('en')} addresses a call, as manual entries (reason \`manual\`) with an optional \`detail\`; \`scope\` defaults to \`all\` (every lane). An address already listed keeps its entry, widened to \`all\` if that is asked.`,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: request.suppressions,
            examples: {
              manual: {
                summary: 'Two addresses, every lane',
                value: { emails: ['ada@example.com', 'grace@example.com'] },
              },
              marketing: {
                summary: 'Campaign mail only',
                value: { emails: ['ada@example.com'], scope: 'marketing' },
              },
              detail: {
                summary: 'With a note',
                value: { emails: ['ada@example.com'], detail: 'Asked by phone not to be mailed' },
              },
            },
          },
        },
      },
      responses: responses(
        { '200': json(suppressionsAddedResponse, 'Each address’s entry') },
        [400, 401, 413, 415, 429],
      ),
    },
    'DELETE /api/v1/suppressions/:email': {
      operationId: 'removeSuppression',
      tags: ['Suppressions'],
      summary: 'Lift a suppression',
      description:
        'The address may be mailed again, and its soft-bounce count starts again from nothing. With `scope`, only an entry of that scope is lifted. Answers the entry removed (its `reason` and `detail` say why it was there). Another tenant’s address, like one not listed, is a 404. A contact who unsubscribed stays unsubscribed until the contact page’s audited resubscribe.',
      requestParams: {
        path: z.object({
          email: z.string().meta({ description: 'The address (URL-encoded)', example: 'ada@example.com' }),
        }),
        query: z.object({ scope: z.enum(SUPPRESSION_SCOPES).optional() }),
      },
      responses: responses({ '200': json(suppressionRemovedResponse, 'Lifted') }, [400, 401, 404, 429]),
    },
    'POST /api/v1/suppressions/import': {
      operationId: 'importSuppressions',
      tags: ['Suppressions'],
      summary: 'Import addresses from CSV',
      description: [
        `A \`text/csv\` body (UTF-8, at most ${MAX_SUPPRESSION_CSV_BYTES / (1024 * 1024)} MB and ${MAX_SUPPRESSION_IMPORT_ROWS.toLocaleString('en')} rows; commas, semicolons or tabs):`,
        'a header row with an `email` column and optionally a `detail` column (other columns are ignored, so this list’s export imports again),',
        'or no header and one address per line. Every address becomes a manual entry (`scope` as for `POST /api/v1/suppressions`).',
        'Rows that cannot be imported are answered in `rejected` with their line number (the first line is 1) and the reason; the rest are imported.',
        'A header with no email column is a 400 naming `header`.',
      ].join(' '),
      requestParams: { query: importSuppressionsQuerySchema },
      requestBody: {
        required: true,
        content: {
          'text/csv': {
            schema: z.string(),
            example: 'email,detail\r\nada@example.com,Asked by phone\r\ngrace@example.com,\r\n',
          },
        },
      },
      responses: responses(
        { '200': json(suppressionImportResponse, 'What was imported, and every row that was not') },
        [400, 401, 413, 415, 429],
      ),
    },
    'GET /api/v1/suppressions/export': {
      operationId: 'exportSuppressions',
      tags: ['Suppressions'],
      summary: 'Export the list as CSV',
      description:
        "Every entry matching the filters (as for the list), in address order, as `text/csv` with the columns `email`, `reason`, `scope`, `detail`, `created_at`. A cell starting with `=`, `+`, `-` or `@` gets a leading `'` so a spreadsheet does not run it; the import takes it off again.",
      requestParams: { query: suppressionsFilterSchema },
      responses: responses(
        {
          '200': {
            description: 'The CSV file (a download)',
            content: { 'text/csv': { schema: z.string() } },
          },
        },
        [400, 401, 429],
      ),
    },
    ...webhookOperations(),
    ...teamOperations(),
    ...messageOperations(messageRequest),
    ...usageOperations(),
    'GET /api/v1/openapi.json': {
      operationId: 'getOpenApiDocument',
      tags: ['Reference'],
      summary: 'This document',
      description: 'OpenAPI 3.1, generated from the schemas that validate requests. No key needed.',
      security: [],
      responses: {
        '200': {
          description: 'The document',
          headers: {
            ETag: { description: 'Send it back in If-None-Match to get a 304', schema: { type: 'string' } },
          },
          content: { 'application/json': { schema: { type: 'object' } } },
        },
        '304': { description: 'Unchanged since the ETag given in If-None-Match' },
      },
    },
  }
}

/** `/api/v1/campaigns/:id/cancel` → `/api/v1/campaigns/{id}/cancel`. */
export function openApiPath(routePath: string): string {
  return routePath.replace(/:([A-Za-z_]+)/g, '{$1}')
}

/**
 * The `/api/v1` API as an OpenAPI 3.1 document, generated by zod-openapi from the schemas the
 * handlers validate with (core's request schemas) and answer with (`../responses.ts`). `now` only
 * moves the campaign examples' dates a year ahead of it.
 */
export function buildOpenApiDocument(options: { now?: Date } = {}): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {}
  for (const [key, operation] of Object.entries(operations(options.now ?? new Date()))) {
    const [method, routePath] = key.split(' ') as [string, string]
    const path = openApiPath(routePath)
    paths[path] = { ...paths[path], [method.toLowerCase()]: operation }
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Fairlane API',
      version: '1',
      description:
        'Send transactional mail and campaigns, and keep your contacts, for one tenant per API key. Errors are `{ "error": { "code", "message", "details"? } }`.',
    },
    tags: TAGS,
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key from the API keys page: `Authorization: Bearer fl_…`',
        },
      },
      schemas: {
        OtpVariables: request.otpVariables,
        PasswordResetVariables: request.passwordResetVariables,
        MessageAccepted: messageAcceptedResponse,
        Message: messageResponse,
        CampaignScheduled: campaignScheduledResponse,
        Campaign: campaignResponse,
        CampaignCancelled: campaignCancelledResponse,
        ContactsUpserted: contactsUpsertedResponse,
        Template: templateResponse,
        Domain: domainResponse,
        Segment: segmentResponse,
        SuppressionsPage: suppressionsPageResponse,
        SuppressionsAdded: suppressionsAddedResponse,
        SuppressionRemoved: suppressionRemovedResponse,
        SuppressionImport: suppressionImportResponse,
        ...webhookSchemas,
        ...teamSchemas,
        Usage: usageResponse,
        Error: errorResponse,
      },
    },
  })
}
