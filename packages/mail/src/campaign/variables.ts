import { parseTemplate, type TemplateSpans } from '../templates/template-engine'

/**
 * The variables a campaign may use, from the contact: `{{email}}`, `{{name}}`, each attribute both
 * as `{{attributes.city}}` and flattened as `{{city}}` (what people type first). `email` and `name`
 * win over attributes of the same name, so an imported column can never change the address shown.
 */
export interface CampaignContact {
  email: string
  name: string | null
  attributes: Record<string, unknown>
}

export function campaignView(contact: CampaignContact): Record<string, unknown> {
  return {
    ...contact.attributes,
    attributes: contact.attributes,
    email: contact.email,
    name: contact.name ?? '',
  }
}

/** The mustache error for a template that cannot be parsed (an unclosed tag or section), else null. */
export function templateSyntaxError(template: string): string | null {
  try {
    parseTemplate(template)
    return null
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

/**
 * Variables the template uses that the sample contact does not have: they render empty, and the
 * editor warns about them. Names inside a section may resolve against the section's item, so only
 * top-level names and section names are checked. An unparsable template reports nothing here (its
 * syntax error is reported instead).
 */
export function findUnknownVariables(template: string, sampleContact: CampaignContact): string[] {
  let spans: TemplateSpans
  try {
    spans = parseTemplate(template)
  } catch {
    return []
  }
  const view = campaignView(sampleContact)
  const unknown = new Set<string>()
  for (const span of spans) {
    const [type, name] = span
    if (!['name', '&', '#', '^'].includes(type) || name === '.') continue
    if (lookup(view, name) === undefined) unknown.add(name)
  }
  return [...unknown]
}

function lookup(view: Record<string, unknown>, name: string): unknown {
  let current: unknown = view
  for (const part of name.split('.')) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[part]
  }
  return current
}
