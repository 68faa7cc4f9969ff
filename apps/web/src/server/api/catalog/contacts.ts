import { contactsRequestSchema, MAX_CONTACTS_PER_REQUEST } from '@fairlane/core'
import { json, responses } from '../v1/openapi/operation-helpers'
import { postContacts } from '../v1/post-contacts'
import { contactsUpsertedResponse } from '../v1/responses'
import { declareRoute } from './define'

const requestSchemas = { contacts: contactsRequestSchema.meta({ id: 'ContactsRequest' }) }

/** Contacts, upserted by email address. */
export const contactRoutes = {
  // 10,000 contacts a call: the import cap, not the API's 1 MB.
  postContacts: declareRoute({
    method: 'POST',
    path: '/api/v1/contacts',
    scope: 'full',
    bodyLimit: 'contactsImport',
    handle: (request, _, deps) => postContacts(request, deps.api),
    openapi: {
      operationId: 'upsertContacts',
      tags: ['Contacts'],
      summary: 'Create or update contacts',
      description: `Up to ${MAX_CONTACTS_PER_REQUEST.toLocaleString('en')} contacts a call, matched by email (case-insensitive). Every entry is checked before anything is written: a 400 names each \`contacts[i].field\` and changes nothing. Attribute keys become template variables.`,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: requestSchemas.contacts,
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
  }),
}
