import { defaultSenderSchema } from '@fairlane/core'
import { getDefaultSender, putDefaultSender } from '../v1/default-sender'
import { json, responses } from '../v1/openapi/operation-helpers'
import { defaultSenderResponse } from '../v1/responses'
import { declareRoute } from './define'

const requestSchemas = { defaultSender: defaultSenderSchema.meta({ id: 'DefaultSenderRequest' }) }

/** The tenant's default sender: From / Reply-To of mail that names none. */
export const senderRoutes = {
  getDefaultSender: declareRoute({
    method: 'GET',
    path: '/api/v1/sender',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => getDefaultSender(request, deps.api),
    openapi: {
      operationId: 'getDefaultSender',
      tags: ['Messages'],
      summary: 'Your default sender',
      description: 'The From and Reply-To of messages, campaigns and templates that name none.',
      responses: responses({ '200': json(defaultSenderResponse, 'The default sender') }, [401, 429]),
    },
  }),
  putDefaultSender: declareRoute({
    method: 'PUT',
    path: '/api/v1/sender',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => putDefaultSender(request, deps.api),
    openapi: {
      operationId: 'setDefaultSender',
      tags: ['Messages'],
      summary: 'Set or clear your default sender',
      description:
        'The whole setting: `from` on one of your verified sending domains (else 422), `replyTo` any address; null, "" or left out clears one. If the domain later fails verification, its mail is held until it verifies again.',
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: requestSchemas.defaultSender,
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
  }),
}
