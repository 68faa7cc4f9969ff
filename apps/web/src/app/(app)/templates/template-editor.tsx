'use client'

import { useActionState } from 'react'
import { useAnsweredForm } from '@/components/use-answered-form'
import { fromFieldHint } from '@/server/settings/from-hint'
import type {
  TemplateEditorState,
  TemplateEditorValues,
  TemplateField,
} from '@/server/templates/editor-state'
import styles from '../campaigns/campaigns.module.css'
import { PreviewPanel } from '../campaigns/preview-panel'
import { saveTemplateAction } from './actions'

interface Props {
  /** Present when editing: the slug is then fixed (API callers send by it). */
  templateId?: string | undefined
  initial: TemplateEditorValues
  contacts: { id: string; email: string; name: string | null }[]
  /** The tenant's verified sending domains, named in the From field's hint. */
  verifiedDomains: string[]
}

/** The template editor: slug, name, subject, HTML and text, with the campaign editor's live preview. */
export function TemplateEditor({ templateId, initial, contacts, verifiedDomains }: Props) {
  const [state, formAction, pending] = useActionState(saveTemplateAction, {
    values: initial,
    errors: {},
  } as TemplateEditorState)
  const { values, change, form } = useAnsweredForm(state)
  const errorOf = (field: TemplateField) =>
    state.errors[field] ? (
      <p id={`field-${field}-error`} className="field-error">
        {state.errors[field]}
      </p>
    ) : null
  const describedBy = (field: TemplateField, hint?: string) =>
    [hint, state.errors[field] ? `field-${field}-error` : undefined].filter(Boolean).join(' ') || undefined
  const invalid = (field: TemplateField) => (state.errors[field] ? true : undefined)

  return (
    <form ref={form} action={formAction} noValidate>
      {templateId ? <input type="hidden" name="templateId" value={templateId} /> : null}
      {state.formError ? (
        <p className="form-error" role="alert">
          {state.formError}
        </p>
      ) : null}
      <div className={styles.editor}>
        <div className={styles.stack}>
          <div className={`card ${styles.stack}`}>
            <h2>Content</h2>
            <div className="field">
              <label htmlFor="field-slug">Slug</label>
              <span id="field-slug-hint" className="hint">
                {templateId
                  ? 'Fixed: API calls send this template by it.'
                  : 'How the API names it: "template": "your-slug". Lowercase letters, digits and hyphens; not otp or password-reset.'}
              </span>
              <input
                id="field-slug"
                name="slug"
                value={values.slug}
                readOnly={templateId !== undefined}
                aria-invalid={invalid('slug')}
                aria-describedby={describedBy('slug', 'field-slug-hint')}
                onChange={(event) => change({ slug: event.target.value })}
              />
              {errorOf('slug')}
            </div>
            <div className="field">
              <label htmlFor="field-name">Name</label>
              <span id="field-name-hint" className="hint">
                Only you see it; left empty, it is the slug.
              </span>
              <input
                id="field-name"
                name="name"
                value={values.name}
                aria-invalid={invalid('name')}
                aria-describedby={describedBy('name', 'field-name-hint')}
                onChange={(event) => change({ name: event.target.value })}
              />
              {errorOf('name')}
            </div>
            <div className="field">
              <label htmlFor="field-from">From</label>
              <span id="field-from-hint" className="hint">
                Optional: {fromFieldHint(verifiedDomains)} Left empty: your default sender. An API call’s own
                "from" wins.
              </span>
              <input
                id="field-from"
                name="from"
                value={values.from}
                placeholder='"Acme" <hello@example.com>'
                autoComplete="off"
                aria-invalid={invalid('from')}
                aria-describedby={describedBy('from', 'field-from-hint')}
                onChange={(event) => change({ from: event.target.value })}
              />
              {errorOf('from')}
            </div>
            <div className="field">
              <label htmlFor="field-replyTo">Reply-To</label>
              <span id="field-replyTo-hint" className="hint">
                Optional: where replies go, any address. Left empty: your default Reply-To, if any.
              </span>
              <input
                id="field-replyTo"
                name="replyTo"
                value={values.replyTo}
                autoComplete="off"
                aria-invalid={invalid('replyTo')}
                aria-describedby={describedBy('replyTo', 'field-replyTo-hint')}
                onChange={(event) => change({ replyTo: event.target.value })}
              />
              {errorOf('replyTo')}
            </div>
            <div className="field">
              <label htmlFor="field-subject">Subject</label>
              <input
                id="field-subject"
                name="subject"
                value={values.subject}
                aria-invalid={invalid('subject')}
                aria-describedby={describedBy('subject')}
                onChange={(event) => change({ subject: event.target.value })}
              />
              {errorOf('subject')}
            </div>
            <div className="field">
              <label htmlFor="field-html">HTML body</label>
              <span id="field-html-hint" className="hint">
                Mustache variables such as {'{{name}}'} come from the API call’s "variables" (HTML-escaped); a
                campaign started from the template fills them from each contact.
              </span>
              <textarea
                id="field-html"
                name="html"
                className={styles.code}
                value={values.html}
                aria-invalid={invalid('html')}
                aria-describedby={describedBy('html', 'field-html-hint')}
                onChange={(event) => change({ html: event.target.value })}
              />
              {errorOf('html')}
            </div>
            <div className="field">
              <label htmlFor="field-text">Text part (optional)</label>
              <span id="field-text-hint" className="hint">
                Left empty, it is generated from the HTML. A template may also be text only.
              </span>
              <textarea
                id="field-text"
                name="text"
                className={`${styles.code} ${styles.textPart}`}
                value={values.text}
                aria-invalid={invalid('text')}
                aria-describedby={describedBy('text', 'field-text-hint')}
                onChange={(event) => change({ text: event.target.value })}
              />
              {errorOf('text')}
            </div>
          </div>
          <div className={styles.actions}>
            <button type="submit" className="button" disabled={pending}>
              {pending ? 'Saving…' : templateId ? 'Save as a new version' : 'Create template'}
            </button>
          </div>
        </div>
        <PreviewPanel
          values={values}
          contacts={contacts}
          defaultTestAddress={null}
          note="As a campaign started from it would look to this contact, with the campaign's unsubscribe footer; mail sent through the API has no footer and takes its variables from the call."
          unknownLabel="Not a field of this contact: an API send must pass it in variables, a campaign leaves it empty:"
        />
      </div>
    </form>
  )
}
