import {
  customMessageRequestSchema,
  IDEMPOTENCY_KEY_TTL_MS,
  templateMessageRequestSchema,
} from '@fairlane/core/accept'
import { z } from 'zod'
import { getMessage } from '../v1/get-message'
import { idParam, json, locationHeader, responses } from '../v1/openapi/operation-helpers'
import { postMessage } from '../v1/post-message'
import { messageAcceptedResponse, messageResponse } from '../v1/responses'
import { declareRoute } from './define'

/** Core's request schemas, named for the document (`.meta()` makes a documented copy; validation is core's). */
const messageRequest = z
  .union([
    templateMessageRequestSchema.meta({ id: 'TemplateMessageRequest' }),
    customMessageRequestSchema.meta({ id: 'CustomMessageRequest' }),
  ])
  .meta({
    // The two are exclusive (a template request needs `template`, a custom one refuses it): oneOf says so.
    override: ({ jsonSchema }) => {
      jsonSchema.oneOf = jsonSchema.anyOf
      delete jsonSchema.anyOf
    },
  })

/** Transactional messages: the two routes a `sending` key may call, send one and read its status. */
export const messageRoutes = {
  postMessage: declareRoute({
    method: 'POST',
    path: '/api/v1/messages',
    scope: 'sending',
    bodyLimit: 'message',
    handle: (request, _, deps) => postMessage(request, deps.api),
    openapi: {
      operationId: 'sendMessage',
      tags: ['Messages'],
      summary: 'Send one message',
      description: [
        'A built-in template (`otp`, `password-reset`, `verify-email`: the `critical` lane, limited to 5 a minute per recipient),',
        'one of your template slugs, or your own `subject` with `html` and/or `text` (the `default` lane).',
        'The built-in templates take the variables in `OtpVariables` and `PasswordResetVariables`;',
        'a tenant template needs every variable it uses. Unknown fields are refused.',
        '`from` (on one of your verified sending domains, else 422) and `replyTo` are optional: without them the template’s, else your default sender, else the platform’s address with your name.',
        '`attachments` (at most 20; `content` strict base64; inline images by `contentId`, referenced as `cid:` in the HTML): the decoded body and files at most `MAX_MESSAGE_BYTES` (10 MB; 413 naming `attachments`), executable types refused (422 naming the file); everything but the files’ content stays within 64 KB.',
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
              attachments: {
                summary: 'An invoice attached, and an inline logo',
                value: {
                  to: 'ada@example.com',
                  subject: 'Your invoice',
                  html: '<p><img src="cid:logo@acme" alt="Acme"> Your invoice is attached.</p>',
                  attachments: [
                    {
                      filename: 'invoice.pdf',
                      contentType: 'application/pdf',
                      content: 'JVBERi0xLjQKJSVFT0YK',
                    },
                    {
                      filename: 'logo.png',
                      contentType: 'image/png',
                      content: 'iVBORw0KGgo=',
                      contentId: 'logo@acme',
                    },
                  ],
                },
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
  }),
  getMessage: declareRoute({
    method: 'GET',
    path: '/api/v1/messages/:id',
    scope: 'sending',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => getMessage(request, id, deps.api),
    openapi: {
      operationId: 'getMessage',
      tags: ['Messages'],
      summary: 'A message’s status and what happened to it',
      description:
        'Its status now and its events in order, from `accepted` to `sent` (with the server’s reply) or `failed`, and what the receiving side reported later (`bounced`, `complained`).',
      requestParams: idParam('message'),
      responses: responses({ '200': json(messageResponse, 'The message') }, [401, 404, 429]),
    },
  }),
}
