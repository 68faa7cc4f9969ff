import { newDomainSchema } from '@fairlane/core'
import {
  deleteDomainById,
  getDomainById,
  getDomains,
  postDomain,
  postDomainRotateDkim,
  postDomainVerify,
} from '../v1/domains'
import { idParam, json, locationHeader, responses } from '../v1/openapi/operation-helpers'
import { domainResponse, domainsResponse } from '../v1/responses'
import { declareRoute } from './define'

const requestSchemas = { newDomain: newDomainSchema.meta({ id: 'NewDomainRequest' }) }

/** Sending domains: their DNS records, verification and DKIM rotation. */
export const domainRoutes = {
  listDomains: declareRoute({
    method: 'GET',
    path: '/api/v1/domains',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => getDomains(request, deps.api),
    openapi: {
      operationId: 'listDomains',
      tags: ['Domains'],
      summary: 'List your sending domains',
      responses: responses(
        { '200': json(domainsResponse, 'Every domain, by name, with its records') },
        [401, 429],
      ),
    },
  }),
  addDomain: declareRoute({
    method: 'POST',
    path: '/api/v1/domains',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => postDomain(request, deps.api),
    openapi: {
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
            schema: requestSchemas.newDomain,
            examples: { domain: { summary: 'A domain', value: { name: 'example.com' } } },
          },
        },
      },
      responses: responses(
        { '201': json(domainResponse, 'Added, pending, with its records', locationHeader('domain')) },
        [400, 401, 409, 413, 415, 422, 429],
      ),
    },
  }),
  getDomain: declareRoute({
    method: 'GET',
    path: '/api/v1/domains/:id',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => getDomainById(request, id, deps.api),
    openapi: {
      operationId: 'getDomain',
      tags: ['Domains'],
      summary: 'A sending domain',
      requestParams: idParam('domain'),
      responses: responses(
        { '200': json(domainResponse, 'The domain, its records as last checked') },
        [401, 404, 429],
      ),
    },
  }),
  verifyDomain: declareRoute({
    method: 'POST',
    path: '/api/v1/domains/:id/verify',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => postDomainVerify(request, id, deps.api),
    openapi: {
      operationId: 'verifyDomain',
      tags: ['Domains'],
      summary: 'Check a domain’s records now',
      description:
        'Looks every record up now. A record is `verified`, `pending` (not found, or the lookup timed out) or `failed` (found but wrong: `found` says what). The domain is `verified` once its DKIM and return-path records (and the ownership record, when listed) verify. Fairlane also checks by itself: pending domains every 5 minutes for 72 hours, the others daily.',
      requestParams: idParam('domain'),
      responses: responses({ '200': json(domainResponse, 'The domain after the check') }, [401, 404, 429]),
    },
  }),
  rotateDomainDkim: declareRoute({
    method: 'POST',
    path: '/api/v1/domains/:id/rotate-dkim',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => postDomainRotateDkim(request, id, deps.api),
    openapi: {
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
  }),
  deleteDomain: declareRoute({
    method: 'DELETE',
    path: '/api/v1/domains/:id',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => deleteDomainById(request, id, deps.api),
    openapi: {
      operationId: 'deleteDomain',
      tags: ['Domains'],
      summary: 'Delete a sending domain',
      description:
        'Deletes the domain and its keys. While mail from it is still pending, queued, being sent or held, the answer is a 409 saying how many messages.',
      requestParams: idParam('domain'),
      responses: responses({ '200': json(domainResponse, 'The domain as it was') }, [401, 404, 409, 429]),
    },
  }),
}
