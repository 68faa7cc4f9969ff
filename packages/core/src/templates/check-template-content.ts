import { oversizedContent } from '../campaigns/campaign-request'
import type { TemplateChecker } from '../campaigns/ports'
import { AppError, type FieldIssue, validationFailed } from '../errors/app-error'
import type { TemplateContent } from './template-request'

/**
 * The campaign rules for content: the same size caps (measured before anything parses it, since a
 * parse costs memory in proportion to the size: 413 naming the field), then mustache syntax with the
 * engine that will render it (400 naming the field and mustache's reason).
 */
export function checkTemplateContent(content: TemplateContent, checker: TemplateChecker): void {
  const oversized = oversizedContent({
    subject: content.subject,
    html: content.html ?? '',
    text: content.text,
  })
  if (oversized.length > 0) {
    const message = oversized.map((issue) => `${issue.path} ${issue.message}`).join('; ')
    throw new AppError('payload_too_large', message, { details: oversized })
  }
  const syntax: FieldIssue[] = []
  for (const [path, template] of [
    ['subject', content.subject],
    ['html', content.html],
    ['text', content.text],
  ] as const) {
    const error = template === null ? null : checker.syntaxError(template)
    if (error !== null) syntax.push({ path, message: `is not a valid template: ${error}` })
  }
  if (syntax.length > 0) throw validationFailed(syntax)
}
