import {
  addDomain,
  type DomainView,
  deleteDomain,
  getDomain,
  listDomains,
  parseNewDomain,
  rotateDkim,
  verifyDomain,
} from '@fairlane/core'
import { AppError } from '@fairlane/core/errors'
import { createDomainStore } from '@fairlane/db/queries/sending-domains'
import { apiAudit, audited } from '../../audit/record-audit'
import { respond } from '../../http/errors'
import { isUuid } from '../../http/ids'
import { readJsonBody } from '../../http/read-json-body'
import { type ApiDeps, authorizeApiCall } from './deps'
import type { DomainResponse } from './responses'

/**
 * `/api/v1/domains`: the tenant's sending domains and the DNS records to publish for them. Handlers
 * only authorize, read and answer; the rules are the use cases' in `@fairlane/core`
 * (`sender-identity/domains/`). No answer ever carries a private key or its ciphertext: the store
 * does not read them.
 */

/** `{ "name": "…" }`: a domain name is at most 253 characters; room for whitespace and escapes. */
export const MAX_DOMAIN_BODY_BYTES = 2 * 1024

const NO_STORE = { 'cache-control': 'no-store' }

export function domainJson(domain: DomainView): DomainResponse {
  return {
    id: domain.id,
    name: domain.name,
    status: domain.status,
    records: domain.records.map((record) => ({
      purpose: record.purpose,
      type: record.type,
      name: record.name,
      value: record.value,
      status: record.status,
      required: record.required,
      ...(record.found !== undefined ? { found: record.found } : {}),
      ...(record.reason !== undefined ? { reason: record.reason } : {}),
      ...(record.selector !== undefined ? { selector: record.selector } : {}),
      ...(record.removableAfter !== undefined ? { removableAfter: record.removableAfter.toISOString() } : {}),
    })),
    failureReason: domain.failureReason,
    dkim: domain.dkim,
    createdAt: domain.createdAt.toISOString(),
    verifiedAt: domain.verifiedAt?.toISOString() ?? null,
    lastCheckedAt: domain.lastCheckedAt?.toISOString() ?? null,
    nextCheckAt: domain.nextCheckAt?.toISOString() ?? null,
  }
}

/**
 * What the domain use cases take, from the handlers' dependencies: the API's and the Domains page's
 * server actions alike (`domainUseCaseDeps(container().api)`).
 */
export function domainUseCaseDeps(deps: ApiDeps) {
  return {
    store: createDomainStore(deps.db),
    clock: deps.clock,
    ...deps.domains,
    maxDomains: deps.tenantLimits.maxDomains,
  }
}

const depsOf = domainUseCaseDeps

/** A malformed id reads as missing, like another tenant's: PostgreSQL would refuse it otherwise. */
function domainQuery(tenantId: string, id: string) {
  if (!isUuid(id)) throw new AppError('not_found', `No sending domain with id ${JSON.stringify(id)}`)
  return { tenantId, domainId: id }
}

/** `GET /api/v1/domains` → `{ items: [domain] }`, by name. */
export function getDomains(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const items = await listDomains({ tenantId: caller.tenantId }, depsOf(deps))
    return Response.json({ items: items.map(domainJson) }, { headers: NO_STORE })
  })
}

/** `POST /api/v1/domains` `{ name }` → `201` the domain, pending, with the records to publish. */
export function postDomain(request: Request, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const body = await readJsonBody(request, MAX_DOMAIN_BODY_BYTES)
    const { name } = parseNewDomain(body)
    const domain = await addDomain(
      { tenantId: caller.tenantId, name, audit: apiAudit(request, caller, audited.domainAdded) },
      depsOf(deps),
    )
    return Response.json(domainJson(domain), {
      status: 201,
      headers: { ...NO_STORE, location: `/api/v1/domains/${domain.id}` },
    })
  })
}

/** `GET /api/v1/domains/:id` → the domain with its records as last checked. */
export function getDomainById(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const domain = await getDomain(domainQuery(caller.tenantId, id), depsOf(deps))
    return Response.json(domainJson(domain), { headers: NO_STORE })
  })
}

/** `POST /api/v1/domains/:id/verify` → looks every record up now and answers the result. */
export function postDomainVerify(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const domain = await verifyDomain(domainQuery(caller.tenantId, id), {
      ...depsOf(deps),
      onHeldReleased: ({ domainId, messages }) =>
        deps.logger.info(
          { tenantId: caller.tenantId, domainId, releasedMessages: messages },
          'held mail released: its domain verified again',
        ),
    })
    return Response.json(domainJson(domain), { headers: NO_STORE })
  })
}

/** `POST /api/v1/domains/:id/rotate-dkim` → the domain with the new key's record listed (409 when not possible now). */
export function postDomainRotateDkim(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const domain = await rotateDkim(
      { ...domainQuery(caller.tenantId, id), audit: apiAudit(request, caller, audited.dkimRotated) },
      depsOf(deps),
    )
    return Response.json(domainJson(domain), { headers: NO_STORE })
  })
}

/** `DELETE /api/v1/domains/:id` → the domain as it was; 409 saying how many messages from it are still open. */
export function deleteDomainById(request: Request, id: string, deps: ApiDeps): Promise<Response> {
  return respond(deps.logger, async () => {
    const caller = await authorizeApiCall(request, deps)
    const domain = await deleteDomain(
      { ...domainQuery(caller.tenantId, id), audit: apiAudit(request, caller, audited.domainRemoved) },
      depsOf(deps),
    )
    return Response.json(domainJson(domain), { headers: NO_STORE })
  })
}
