import { validationFailed } from '../errors/app-error'
import { checkSenderDomain } from '../senders/check-sender-domain'
import type { SenderChoice } from '../senders/ports'
import { checkTemplateContent } from './check-template-content'
import type { TemplateDeps } from './create-template'
import { getTemplate, templateNotFound } from './get-template'
import type { StoredTemplate } from './ports'
import type { TemplateChange, TemplateContent } from './template-request'

export interface UpdateTemplateInput {
  tenantId: string
  /** The template's id or slug. */
  ref: string
  change: TemplateChange
  /** A slug given with a full replacement (PUT): it must be the template's own. */
  slug?: string | null | undefined
}

/**
 * Changes a template. A change of subject, HTML or text makes a new version (the answer's
 * `version`); a change of name or sender alone, or saving the same content again, does not. Mail already
 * accepted keeps what it rendered: messages store their rendered content, not a reference.
 */
export async function updateTemplate(
  input: UpdateTemplateInput,
  deps: TemplateDeps,
): Promise<StoredTemplate> {
  const current = await getTemplate({ tenantId: input.tenantId, ref: input.ref }, deps)
  if (input.slug !== undefined && input.slug !== null && input.slug !== current.slug) {
    throw validationFailed([{ path: 'slug', message: 'cannot be changed: create a new template instead' }])
  }
  const { change } = input
  const next: TemplateContent = {
    subject: change.subject ?? current.subject,
    html: change.html === undefined ? current.html : change.html,
    text: change.text === undefined ? current.text : change.text,
  }
  if (next.html === null && next.text === null) {
    throw validationFailed([
      { path: change.html === null ? 'html' : 'text', message: 'give html, text or both' },
    ])
  }
  const contentChanged =
    next.subject !== current.subject || next.html !== current.html || next.text !== current.text
  if (contentChanged) checkTemplateContent(next, deps.templates)
  const sender: SenderChoice = {
    from: change.from === undefined ? current.from : change.from,
    replyTo: change.replyTo === undefined ? current.replyTo : change.replyTo,
  }
  // Only a newly named From is checked: keeping one whose domain failed since is the tenant's call.
  if (sender.from !== null && sender.from !== current.from) {
    await checkSenderDomain({ tenantId: input.tenantId, from: sender.from }, deps)
  }
  const updated = await deps.store.updateTemplate({
    tenantId: input.tenantId,
    templateId: current.id,
    name: change.name ?? current.name,
    content: contentChanged ? next : null,
    sender,
    versionsKept: deps.limits.versionsKept,
  })
  if (updated === null) throw templateNotFound(input.ref)
  return updated
}
