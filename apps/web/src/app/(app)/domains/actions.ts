'use server'

import { isAppError } from '@fairlane/core/errors'
import { revalidatePath } from 'next/cache'
import { notFound, redirect } from 'next/navigation'
import { authorize } from '@/server/auth/session'
import { isUuid } from '@/server/http/ids'
import { domainUseCases } from './use-cases'

export interface AddDomainState {
  values: { name: string }
  error?: string
}

/** Adds a domain by the same use case and validation as `POST /api/v1/domains`, then shows its records. */
export async function addDomainAction(_state: AddDomainState, form: FormData): Promise<AddDomainState> {
  const { session } = await authorize('domains.manage')
  const name = String(form.get('name') ?? '')
  let id: string
  try {
    id = (await domainUseCases().add({ tenantId: session.tenantId, name })).id
  } catch (error) {
    // Not a registrable name (400 naming `name`), already added (409) or one domain too many (422):
    // said beside the field.
    if (isAppError(error) && ['validation_failed', 'conflict', 'unprocessable'].includes(error.code)) {
      return { values: { name }, error: error.details?.[0]?.message ?? error.message }
    }
    throw error
  }
  revalidatePath('/domains')
  redirect(`/domains/${id}?notice=added`)
}

/** What a domain's buttons answer when refused; success leaves for the domain's page with a notice. */
export interface DomainActionState {
  error?: string
}

function domainIdOf(form: FormData): string {
  const id = String(form.get('domainId') ?? '')
  if (!isUuid(id)) notFound()
  return id
}

/**
 * Runs one use case on the signed-in tenant's domain: another tenant's id (or none) is a 404, a
 * refusal (a rotation already under way, mail still queued) is said next to the button.
 */
async function onDomain<Result>(
  tenantId: string,
  form: FormData,
  run: (input: { tenantId: string; domainId: string }) => Promise<Result>,
  success: (domainId: string, result: Result) => string,
): Promise<DomainActionState> {
  const domainId = domainIdOf(form)
  let result: Result
  try {
    result = await run({ tenantId, domainId })
  } catch (error) {
    if (isAppError(error) && error.code === 'not_found') notFound()
    if (isAppError(error)) return { error: error.message }
    throw error
  }
  revalidatePath('/domains')
  redirect(success(domainId, result))
}

export async function verifyDomainAction(
  _state: DomainActionState,
  form: FormData,
): Promise<DomainActionState> {
  const { session } = await authorize('domains.manage')
  return onDomain(
    session.tenantId,
    form,
    domainUseCases().verify,
    (id, result) => `/domains/${id}?notice=checked&released=${result.releasedMessages}`,
  )
}

export async function rotateDkimAction(
  _state: DomainActionState,
  form: FormData,
): Promise<DomainActionState> {
  const { session } = await authorize('domains.manage')
  return onDomain(
    session.tenantId,
    form,
    domainUseCases().rotateDkim,
    (id) => `/domains/${id}?notice=rotated`,
  )
}

export async function deleteDomainAction(
  _state: DomainActionState,
  form: FormData,
): Promise<DomainActionState> {
  const { session } = await authorize('domains.manage')
  return onDomain(session.tenantId, form, domainUseCases().remove, () => '/domains?notice=deleted')
}
