import { messagesQuerySchema } from '@fairlane/core'
import {
  customMessageRequestSchema,
  IDEMPOTENCY_KEY_TTL_MS,
  MAX_BATCH_MESSAGES,
  templateMessageRequestSchema,
} from '@fairlane/core/accept'
import { z } from 'zod'
import { deleteMessage } from '../v1/delete-message'
import { getMessage } from '../v1/get-message'
import { getMessages } from '../v1/get-messages'
import { idParam, json, locationHeader, responses } from '../v1/openapi/operation-helpers'
import { postMessage } from '../v1/post-message'
import { postMessagesBatch } from '../v1/post-messages-batch'
import {
  batchAcceptedResponse,
  messageAcceptedResponse,
  messageCancelledResponse,
  messageListResponse,
  messageResponse,
} from '../v1/responses'
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

/**
 * Transactional messages: send one or a batch, read one, list them, cancel one not yet sent. A `sending`
 * key may send, read and cancel; the list needs a `full` key.
 */
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
  // Batch (sending keys too), before `/api/v1/messages/:id` so the router tries the literal path first.
  postMessagesBatch: declareRoute({
    method: 'POST',
    path: '/api/v1/messages/batch',
    scope: 'sending',
    bodyLimit: 'messagesBatch',
    handle: (request, _, deps) => postMessagesBatch(request, deps.api),
    openapi: {
      operationId: 'sendMessageBatch',
      tags: ['Messages'],
      summary: `Send up to ${MAX_BATCH_MESSAGES} messages in one call`,
      description: [
        'Each item is what `POST /api/v1/messages` takes (`sendAt` too), plus an optional `idempotencyKey` (a string, 1 to 255 printable characters, not shown in the item schema), and is answered on its own:',
        '`{ index, status: 202, id }`, or `{ index, status, error }` with the status that call would have given (400 a bad field, 422 a `from` off your domains or a `sendAt` out of range, 429 over your plan).',
        'The accepted ones are written in one transaction. With an `Idempotency-Key` on the call, a retry of the same call answers the same ids and writes nothing new',
        `(each item without its own key uses one derived from the call’s key and its index, kept ${IDEMPOTENCY_KEY_TTL_MS / 3_600_000} hours).`,
        `More than ${MAX_BATCH_MESSAGES} items: 400 naming \`messages\`.`,
      ].join(' '),
      requestParams: {
        header: z.object({
          'Idempotency-Key': z.string().min(1).max(255).optional().meta({
            description: 'Makes a retry of the same call answer the same results without new messages',
          }),
        }),
      },
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: z.strictObject({
              messages: z.array(messageRequest).min(1).max(MAX_BATCH_MESSAGES),
            }),
            examples: {
              two: {
                summary: 'A login code now and a reminder tomorrow',
                value: {
                  messages: [
                    { to: 'ada@example.com', template: 'otp', variables: { code: '482913' } },
                    {
                      to: 'bob@example.com',
                      subject: 'Your appointment',
                      text: 'See you at 10:00.',
                      sendAt: '2030-01-01T09:00:00+01:00',
                    },
                  ],
                },
              },
            },
          },
        },
      },
      responses: responses(
        { '200': json(batchAcceptedResponse, 'One result per item, in order') },
        [400, 401, 413, 415, 429],
      ),
    },
  }),
  // The list shows every recipient and subject of the tenant: a `full` key only.
  listMessages: declareRoute({
    method: 'GET',
    path: '/api/v1/messages',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => getMessages(request, deps.api),
    openapi: {
      operationId: 'listMessages',
      tags: ['Messages'],
      summary: 'List your messages',
      description:
        'API and campaign mail, newest first, paged with `cursor` (the `nextCursor` of the page before). Filter by `status`, recipient (`to`, the whole address, any case), `campaignId` and creation time (`from` inclusive, `until` exclusive). A `full` key only. An unknown or malformed parameter is a 400 naming it.',
      requestParams: { query: messagesQuerySchema },
      responses: responses({ '200': json(messageListResponse, 'A page of messages') }, [400, 401, 429]),
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
  // A `sending` key may take back what it sent.
  deleteMessage: declareRoute({
    method: 'DELETE',
    path: '/api/v1/messages/:id',
    scope: 'sending',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => deleteMessage(request, id, deps.api),
    openapi: {
      operationId: 'cancelMessage',
      tags: ['Messages'],
      summary: 'Cancel a message not yet sent',
      description:
        'A scheduled message, or one queued that no worker has taken yet, becomes `cancelled` (event `cancelled`) and is never sent. Once it is being sent or has finished: 409.',
      requestParams: idParam('message'),
      responses: responses({ '200': json(messageCancelledResponse, 'Cancelled') }, [401, 404, 409, 429]),
    },
  }),
}
