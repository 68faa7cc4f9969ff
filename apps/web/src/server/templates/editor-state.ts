/** What the template editor form holds, and what the save action answers with. Shared by client and server. */
export interface TemplateEditorValues {
  slug: string
  name: string
  subject: string
  html: string
  text: string
  /** The template's From (on a verified domain) or empty for the tenant's default sender. */
  from: string
  replyTo: string
}

export type TemplateField = keyof TemplateEditorValues

export interface TemplateEditorState {
  values: TemplateEditorValues
  errors: Partial<Record<TemplateField, string>>
  formError?: string | undefined
}

export function emptyTemplateValues(): TemplateEditorValues {
  return {
    slug: '',
    name: '',
    subject: 'Welcome, {{name}}',
    html: '<p>Hello {{name}},</p>\n<p></p>',
    text: '',
    from: '',
    replyTo: '',
  }
}
