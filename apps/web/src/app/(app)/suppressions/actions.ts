'use server'

import { isAppError } from '@fairlane/core/errors'
import { revalidatePath } from 'next/cache'
import { redirect } from 'next/navigation'
import { authorize } from '@/server/auth/session'
import { suppressionUseCases } from './use-cases'

/** The list's search and filter, carried through an action so the page comes back as it was. */
function backTo(form: FormData, extra: Record<string, string>): string {
  const query = new URLSearchParams()
  for (const key of ['email', 'reason']) {
    const value = String(form.get(`back-${key}`) ?? '').slice(0, 254)
    if (value) query.set(key, value)
  }
  for (const [key, value] of Object.entries(extra)) query.set(key, value)
  return `/suppressions?${query.toString()}`
}

/**
 * Lifts one address's suppression (and its soft-bounce count), as `DELETE /api/v1/suppressions/:email`
 * does; the page then says which address was removed, or that it was no longer listed.
 */
export async function removeSuppressionAction(form: FormData): Promise<void> {
  const { session } = await authorize('suppressions.remove')
  const email = String(form.get('email') ?? '').slice(0, 300)
  let removed: string
  try {
    removed = (await suppressionUseCases().remove({ tenantId: session.tenantId, email })).email
  } catch (error) {
    if (isAppError(error) && ['not_found', 'validation_failed'].includes(error.code)) {
      redirect(backTo(form, { notice: 'not-listed', address: email }))
    }
    throw error
  }
  revalidatePath('/suppressions')
  revalidatePath('/dashboard')
  redirect(backTo(form, { notice: 'removed', address: removed }))
}

export interface AddSuppressionsState {
  values: { emails: string; detail: string }
  error?: string
  detailError?: string
}

/** Addresses typed one per line (or separated by commas, semicolons or spaces). */
function splitAddresses(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((part) => part.trim())
    .filter((part) => part !== '')
}

/**
 * Adds addresses by hand, as `POST /api/v1/suppressions` does (reason `manual`, every lane) with the
 * note as their `detail`. A refusal names the address that is not one, and keeps what was typed.
 */
export async function addSuppressionsAction(
  _state: AddSuppressionsState,
  form: FormData,
): Promise<AddSuppressionsState> {
  const { session } = await authorize('suppressions.add')
  const values = {
    emails: String(form.get('emails') ?? '').slice(0, 300_000),
    detail: String(form.get('detail') ?? '').slice(0, 2000),
  }
  const emails = splitAddresses(values.emails)
  if (emails.length === 0) return { values, error: 'Type at least one address.' }
  let added: number
  try {
    const body = { emails, ...(values.detail.trim() ? { detail: values.detail } : {}) }
    added = (await suppressionUseCases().add({ tenantId: session.tenantId, body })).length
  } catch (error) {
    if (!isAppError(error) || error.code !== 'validation_failed') throw error
    const issue = error.details?.[0]
    if (issue?.path === 'detail') return { values, detailError: `The note ${issue.message}.` }
    const index = /^emails\[(\d+)\]$/.exec(issue?.path ?? '')?.[1]
    const address = index === undefined ? undefined : emails[Number(index)]
    return {
      values,
      error:
        address !== undefined
          ? `“${address.slice(0, 100)}” is not an email address (${issue?.message}). Nothing was added.`
          : `The addresses ${issue?.message ?? 'are not valid'}.`,
    }
  }
  revalidatePath('/suppressions')
  revalidatePath('/dashboard')
  redirect(`/suppressions?notice=added&count=${added}`)
}
