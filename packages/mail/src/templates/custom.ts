import type { RenderOutcome } from '@fairlane/core/accept'
import { textFromHtml } from './html-text'

export interface CustomContent {
  subject: string
  html?: string | undefined
  text?: string | undefined
}

/** Custom content is sent as given; only a missing text part is generated (from the HTML). */
export function renderCustom(content: CustomContent): RenderOutcome {
  const html = content.html ?? null
  const text = content.text ?? (html === null ? '' : textFromHtml(html))
  if (html === null && content.text === undefined) {
    return { ok: false, issues: [{ path: 'html', message: 'give html, text or both' }] }
  }
  return { ok: true, message: { subject: content.subject, html, text, template: null, variables: null } }
}
