import { HEADER_UNSAFE_MESSAGE, isHeaderSafe, type RenderOutcome } from '@fairlane/core/accept'
import type { FieldIssue } from '@fairlane/core/errors'
import { textFromHtml } from './html-text'
import { parseTemplate, renderTemplate, type TemplateSpans } from './template-engine'

/** A tenant's stored template (table `templates`), as the renderer needs it. */
export interface TenantTemplate {
  slug: string
  subject: string
  /** Null for a text-only template; at least one of `html` and `text` is set. */
  html: string | null
  text: string | null
  /** Recorded on the message (`template_version`), so a message says which version it was rendered from. */
  version?: number | undefined
}

type Spans = TemplateSpans

/** The subject and text part are not HTML: their variables are inserted as they are, not entity-escaped. */
const PLAIN = { escape: (value: unknown) => String(value) }

/**
 * Renders a tenant template with mustache: `{{name}}` is HTML-escaped in the HTML part. A variable
 * the template uses outside a section must be given (a missing one is a 400 at accept time, not an
 * empty hole in a sent mail); variables used in the subject must be single lines.
 */
export function renderTenantTemplate(
  template: TenantTemplate,
  variables: Record<string, unknown>,
): RenderOutcome {
  let parsed: { subject: Spans; html: Spans | null; text: Spans | null }
  try {
    parsed = {
      subject: parseTemplate(template.subject),
      html: template.html === null ? null : parseTemplate(template.html),
      text: template.text === null ? null : parseTemplate(template.text),
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return {
      ok: false,
      issues: [{ path: 'template', message: `template "${template.slug}" cannot be rendered: ${reason}` }],
    }
  }

  const issues: FieldIssue[] = []
  const required = new Set(
    [parsed.subject, parsed.html, parsed.text].flatMap((spans) => (spans ? topLevelNames(spans) : [])),
  )
  for (const name of required) {
    const value = lookup(variables, name)
    if (value === undefined || value === null) {
      issues.push({ path: `variables.${name}`, message: `is required by template "${template.slug}"` })
    }
  }
  for (const name of new Set(allNames(parsed.subject))) {
    const value = lookup(variables, name)
    if (typeof value === 'string' && !isHeaderSafe(value)) {
      issues.push({
        path: `variables.${name}`,
        message: `${HEADER_UNSAFE_MESSAGE} (it is used in the subject)`,
      })
    }
  }
  if (issues.length > 0) return { ok: false, issues }

  const subject = renderTemplate(template.subject, variables, PLAIN).trim()
  const html = template.html === null ? null : renderTemplate(template.html, variables)
  const text =
    template.text !== null ? renderTemplate(template.text, variables, PLAIN) : textFromHtml(html ?? '')
  if (subject === '') {
    return {
      ok: false,
      issues: [{ path: 'template', message: `template "${template.slug}" renders an empty subject` }],
    }
  }
  return {
    ok: true,
    message: {
      subject,
      html,
      text,
      template: template.slug,
      templateVersion: template.version ?? null,
      variables,
    },
  }
}

/** Names used outside any section: inside `{{#list}}` a name may resolve against the list item. */
function topLevelNames(spans: Spans): string[] {
  return spans
    .filter((span) => (span[0] === 'name' || span[0] === '&') && span[1] !== '.')
    .map((span) => span[1])
}

/** Every variable name and section name at any depth. */
function allNames(spans: Spans): string[] {
  return spans.flatMap((span) => {
    const [type, name] = span
    if (type === 'name' || type === '&') return name === '.' ? [] : [name]
    if (type === '#' || type === '^') {
      const children = span[4]
      return [name, ...(Array.isArray(children) ? allNames(children as Spans) : [])]
    }
    return []
  })
}

/** Mustache's dotted lookup (`user.name`) against the top-level view. */
function lookup(view: Record<string, unknown>, name: string): unknown {
  let current: unknown = view
  for (const part of name.split('.')) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[part]
  }
  return current
}
