'use server'

import {
  createTemplate,
  deleteTemplate,
  parseNewTemplate,
  parseTemplateChange,
  type TemplateDeps,
  updateTemplate,
} from '@fairlane/core'
import { isAppError } from '@fairlane/core/errors'
import { createSenderDomains } from '@fairlane/db/queries/senders'
import { createTemplateStore } from '@fairlane/db/queries/templates'
import { templateSyntaxError } from '@fairlane/mail/templates'
import { revalidatePath } from 'next/cache'
import { notFound, redirect } from 'next/navigation'
import { authorize } from '@/server/auth/session'
import { container } from '@/server/container'
import { isUuid } from '@/server/http/ids'
import type { TemplateEditorState } from '@/server/templates/editor-state'
import { templateBodyOf, templateStateFromError, templateValuesOf } from '@/server/templates/template-form'

function deps(): TemplateDeps {
  return {
    store: createTemplateStore(container().database.db),
    templates: { syntaxError: templateSyntaxError },
    domains: createSenderDomains(container().database.db),
    limits: container().api.tenantLimits.templates,
  }
}

/**
 * Creates a template (no `templateId`) or saves a change, by the same use cases and validation as
 * `/api/v1/templates`; a content change becomes the next version.
 */
export async function saveTemplateAction(
  _state: TemplateEditorState,
  form: FormData,
): Promise<TemplateEditorState> {
  const { session } = await authorize('templates.manage')
  const templateId = String(form.get('templateId') ?? '')
  if (templateId !== '' && !isUuid(templateId)) notFound()
  const values = templateValuesOf(form)
  let saved: { id: string; version: number }
  try {
    saved =
      templateId === ''
        ? await createTemplate(
            { tenantId: session.tenantId, request: parseNewTemplate(templateBodyOf(values, 'create')) },
            deps(),
          )
        : await updateTemplate(
            {
              tenantId: session.tenantId,
              ref: templateId,
              change: parseTemplateChange(templateBodyOf(values, 'update')),
            },
            deps(),
          )
  } catch (error) {
    if (isAppError(error) && error.code === 'not_found' && templateId !== '') notFound()
    if (isAppError(error)) return templateStateFromError(values, error)
    throw error
  }
  revalidatePath('/templates')
  redirect(`/templates/${saved.id}?notice=saved&version=${saved.version}`)
}

/** Deletes a template after the page asked; always allowed (see `deleteTemplate` in core). */
export async function deleteTemplateAction(form: FormData): Promise<void> {
  const { session } = await authorize('templates.manage')
  const templateId = String(form.get('templateId') ?? '')
  if (!isUuid(templateId)) notFound()
  let slug: string
  try {
    slug = (await deleteTemplate({ tenantId: session.tenantId, ref: templateId }, deps())).slug
  } catch (error) {
    if (isAppError(error) && error.code === 'not_found') notFound()
    throw error
  }
  revalidatePath('/templates')
  redirect(`/templates?notice=deleted&slug=${encodeURIComponent(slug)}`)
}
