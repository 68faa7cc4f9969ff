import { messagesQuerySchema } from '@fairlane/core'
import { IDEMPOTENCY_KEY_TTL_MS, MAX_BATCH_MESSAGES } from '@fairlane/core/accept'
import { z } from 'zod'
import { batchAcceptedResponse, messageCancelledResponse, messageListResponse } from '../responses'
import type { RouteKey } from './document'
import { idParam, json, type Operation, responses } from './operation-helpers'

/** Batch, cancel and list of `/api/v1/messages` in the API document (issue 29's ways in). */
export function messageOperations(messageRequest: z.ZodType): Record<RouteKey, Operation> {
  return {
    'POST /api/v1/messages/batch': {
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
    'GET /api/v1/messages': {
      operationId: 'listMessages',
      tags: ['Messages'],
      summary: 'List your messages',
      description:
        'API and campaign mail, newest first, paged with `cursor` (the `nextCursor` of the page before). Filter by `status`, recipient (`to`, the whole address, any case), `campaignId` and creation time (`from` inclusive, `until` exclusive). A `full` key only. An unknown or malformed parameter is a 400 naming it.',
      requestParams: { query: messagesQuerySchema },
      responses: responses({ '200': json(messageListResponse, 'A page of messages') }, [400, 401, 429]),
    },
    'DELETE /api/v1/messages/:id': {
      operationId: 'cancelMessage',
      tags: ['Messages'],
      summary: 'Cancel a message not yet sent',
      description:
        'A scheduled message, or one queued that no worker has taken yet, becomes `cancelled` (event `cancelled`) and is never sent. Once it is being sent or has finished: 409.',
      requestParams: idParam('message'),
      responses: responses({ '200': json(messageCancelledResponse, 'Cancelled') }, [401, 404, 409, 429]),
    },
  }
}
