'use server'

import { parseNewWebhookEndpoint, parseWebhookEndpointPatch, type WebhookEndpointView } from '@fairlane/core'
import { type AppError, isAppError } from '@fairlane/core/errors'
import { revalidatePath } from 'next/cache'
import { notFound, redirect } from 'next/navigation'
import { authorize } from '@/server/auth/session'
import { isUuid } from '@/server/http/ids'
import { webhookUseCases } from './use-cases'

/** What the endpoint form holds: the fields as typed, so a refused form comes back as it was. */
export interface WebhookFormValues {
  url: string
  description: string
  events: string[]
}

export interface WebhookFormState {
  values: WebhookFormValues
  /** Each refused field's message (`url`, `events`, `description`), or `form` for the rest. */
  errors?: Record<string, string>
  /** After a create: the new endpoint and its secret, shown this once. */
  created?: { id: string; url: string; secret: string }
  saved?: boolean
}

function valuesOf(form: FormData): WebhookFormValues {
  return {
    url: String(form.get('url') ?? ''),
    description: String(form.get('description') ?? ''),
    events: form.getAll('events').map(String),
  }
}

/** A refusal's fields as the form shows them: `events[1]` is said beside the events. */
function fieldErrors(error: AppError): Record<string, string> {
  const errors: Record<string, string> = {}
  for (const issue of error.details ?? []) {
    const field = issue.path.replace(/\[.*$/, '') || 'form'
    errors[field] ??= issue.message
  }
  return Object.keys(errors).length > 0 ? errors : { form: error.message }
}

const refusable = (error: unknown): error is AppError =>
  isAppError(error) && ['validation_failed', 'conflict', 'unprocessable'].includes(error.code)

/** Adds an endpoint by the same use case and checks as `POST /api/v1/webhooks`; its secret is answered once. */
export async function createWebhookAction(
  _state: WebhookFormState,
  form: FormData,
): Promise<WebhookFormState> {
  const { session } = await authorize('webhooks.manage')
  const values = valuesOf(form)
  try {
    const endpoint = parseNewWebhookEndpoint({ ...values, description: values.description || null })
    const created = await webhookUseCases().create({ tenantId: session.tenantId, endpoint })
    revalidatePath('/webhooks')
    return {
      values: { url: '', description: '', events: [] },
      created: { id: created.id, url: created.url, secret: created.secret },
    }
  } catch (error) {
    if (refusable(error)) return { values, errors: fieldErrors(error) }
    throw error
  }
}

function endpointIdOf(form: FormData): string {
  const id = String(form.get('endpointId') ?? '')
  if (!isUuid(id)) notFound()
  return id
}

/** Changes the URL, events and description as `PATCH /api/v1/webhooks/:id` does. */
export async function updateWebhookAction(
  _state: WebhookFormState,
  form: FormData,
): Promise<WebhookFormState> {
  const { session } = await authorize('webhooks.manage')
  const endpointId = endpointIdOf(form)
  const values = valuesOf(form)
  try {
    const patch = parseWebhookEndpointPatch({ ...values, description: values.description || null })
    await webhookUseCases().update({ tenantId: session.tenantId, endpointId, patch })
  } catch (error) {
    if (isAppError(error) && error.code === 'not_found') notFound()
    if (refusable(error)) return { values, errors: fieldErrors(error) }
    throw error
  }
  revalidatePath('/webhooks')
  return { values, saved: true }
}

/** What an endpoint's buttons answer when refused; success moves to a page with a notice. */
export interface EndpointActionState {
  error?: string
  /** A rotation's new secret, shown this once. */
  secret?: string
}

async function onEndpoint(
  tenantId: string,
  form: FormData,
  run: (query: { tenantId: string; endpointId: string }) => Promise<unknown>,
  success: (endpointId: string) => string,
): Promise<EndpointActionState> {
  const endpointId = endpointIdOf(form)
  try {
    await run({ tenantId, endpointId })
  } catch (error) {
    if (isAppError(error) && error.code === 'not_found') notFound()
    if (isAppError(error)) return { error: error.message }
    throw error
  }
  revalidatePath('/webhooks')
  redirect(success(endpointId))
}

export async function setWebhookEnabledAction(
  _state: EndpointActionState,
  form: FormData,
): Promise<EndpointActionState> {
  const { session } = await authorize('webhooks.manage')
  const enabled = form.get('enabled') === 'true'
  return onEndpoint(
    session.tenantId,
    form,
    (query) => webhookUseCases().update({ ...query, patch: { enabled } }),
    (id) => `/webhooks/${id}?notice=${enabled ? 'enabled' : 'disabled'}`,
  )
}

export async function sendTestEventAction(
  _state: EndpointActionState,
  form: FormData,
): Promise<EndpointActionState> {
  const { session } = await authorize('webhooks.manage')
  return onEndpoint(
    session.tenantId,
    form,
    webhookUseCases().sendTest,
    (id) => `/webhooks/${id}?notice=test-sent`,
  )
}

export async function deleteWebhookAction(
  _state: EndpointActionState,
  form: FormData,
): Promise<EndpointActionState> {
  const { session } = await authorize('webhooks.manage')
  return onEndpoint(session.tenantId, form, webhookUseCases().remove, () => '/webhooks?notice=deleted')
}

/** A new secret, answered to the page (not in a URL, never stored in the browser's history). */
export async function rotateWebhookSecretAction(
  _state: EndpointActionState,
  form: FormData,
): Promise<EndpointActionState> {
  const { session } = await authorize('webhooks.manage')
  const endpointId = endpointIdOf(form)
  let rotated: WebhookEndpointView & { secret: string }
  try {
    rotated = await webhookUseCases().rotateSecret({ tenantId: session.tenantId, endpointId })
  } catch (error) {
    if (isAppError(error) && error.code === 'not_found') notFound()
    throw error
  }
  revalidatePath(`/webhooks/${endpointId}`)
  return { secret: rotated.secret }
}

/**
 * Replays the deliveries checked in the log (or the one whose button was pressed), as
 * `POST /api/v1/webhooks/:id/deliveries/replay` does, and comes back to the log as it was filtered.
 */
export async function replayDeliveriesAction(form: FormData): Promise<void> {
  const { session } = await authorize('webhooks.manage')
  const endpointId = endpointIdOf(form)
  const deliveryIds = [...new Set(form.getAll('ids').map(String).filter(isUuid))].slice(0, 100)
  const status = String(form.get('status') ?? '')
  const back = (notice: string) => {
    const query = new URLSearchParams({ notice })
    if (status) query.set('status', status)
    return `/webhooks/${endpointId}?${query}`
  }
  if (deliveryIds.length === 0) redirect(back('none-selected'))
  let count: number
  try {
    count = (await webhookUseCases().replay({ tenantId: session.tenantId, endpointId, deliveryIds })).replayed
      .length
  } catch (error) {
    if (isAppError(error) && error.code === 'not_found') notFound()
    if (isAppError(error) && error.code === 'conflict') redirect(back('replay-disabled'))
    throw error
  }
  revalidatePath(`/webhooks/${endpointId}`)
  redirect(`${back('replayed')}&count=${count}`)
}
