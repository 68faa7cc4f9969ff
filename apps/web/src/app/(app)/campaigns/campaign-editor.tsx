'use client'

import { useActionState } from 'react'
import { useAnsweredForm } from '@/components/use-answered-form'
import type { EditorState, EditorValues } from '@/server/campaigns/editor-state'
import { fromFieldHint } from '@/server/settings/from-hint'
import { saveCampaignAction } from './actions'
import styles from './campaigns.module.css'
import { PreviewPanel } from './preview-panel'
import { ScheduleFields } from './schedule-fields'
import { TrackingFields } from './tracking-fields'

interface Props {
  campaignId?: string | undefined
  initial: EditorValues
  lists: { id: string; name: string }[]
  segments: { id: string; name: string }[]
  contacts: { id: string; email: string; name: string | null }[]
  zones: string[]
  defaultTestAddress: string
  /** The tenant's verified sending domains, named in the From field's hint. */
  verifiedDomains: string[]
  /** The tenant's default sender, used when From is left empty (null: the platform's address). */
  defaultFrom: string | null
  /**
   * Why this tenant may not schedule or send yet (unverified email, held for approval: core's
   * decideAccess), or null. Drafts can still be saved.
   */
  sendRefusal?: string | null | undefined
}

/** The campaign editor: content, audience, preview and test send, schedule. Fields are controlled so the preview follows them. */
export function CampaignEditor({
  campaignId,
  initial,
  lists,
  segments,
  contacts,
  zones,
  defaultTestAddress,
  verifiedDomains,
  defaultFrom,
  sendRefusal = null,
}: Props) {
  const [state, formAction, pending] = useActionState(saveCampaignAction, {
    values: initial,
    errors: {},
  } as EditorState)
  const { values, change, form } = useAnsweredForm(state)
  const errorOf = (field: keyof EditorValues) =>
    state.errors[field] ? (
      <p id={`field-${field}-error`} className="field-error">
        {state.errors[field]}
      </p>
    ) : null
  const describedBy = (field: keyof EditorValues, hint?: string) =>
    [hint, state.errors[field] ? `field-${field}-error` : undefined].filter(Boolean).join(' ') || undefined

  return (
    <form ref={form} action={formAction} noValidate>
      {campaignId ? <input type="hidden" name="campaignId" value={campaignId} /> : null}
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
              <label htmlFor="field-name">Name</label>
              <span id="field-name-hint" className="hint">
                Only you see it.
              </span>
              <input
                id="field-name"
                name="name"
                value={values.name}
                aria-invalid={state.errors.name ? true : undefined}
                aria-describedby={describedBy('name', 'field-name-hint')}
                onChange={(event) => change({ name: event.target.value })}
              />
              {errorOf('name')}
            </div>
            <div className="field">
              <label htmlFor="field-from">From</label>
              <span id="field-from-hint" className="hint">
                {fromFieldHint(verifiedDomains)} Left empty:{' '}
                {defaultFrom
                  ? `your default sender, ${defaultFrom}`
                  : 'the platform’s address with your name'}
                .
              </span>
              <input
                id="field-from"
                name="from"
                value={values.from}
                placeholder='"Acme News" <news@example.com>'
                autoComplete="off"
                aria-invalid={state.errors.from ? true : undefined}
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
                aria-invalid={state.errors.replyTo ? true : undefined}
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
                aria-invalid={state.errors.subject ? true : undefined}
                aria-describedby={describedBy('subject')}
                onChange={(event) => change({ subject: event.target.value })}
              />
              {errorOf('subject')}
            </div>
            <div className="field">
              <label htmlFor="field-html">HTML body</label>
              <span id="field-html-hint" className="hint">
                Variables: {'{{name}}'}, {'{{email}}'}, and any contact attribute as {'{{city}}'} or{' '}
                {'{{attributes.city}}'}. Values are HTML-escaped. An unsubscribe footer is added.
              </span>
              <textarea
                id="field-html"
                name="html"
                className={styles.code}
                value={values.html}
                aria-invalid={state.errors.html ? true : undefined}
                aria-describedby={describedBy('html', 'field-html-hint')}
                onChange={(event) => change({ html: event.target.value })}
              />
              {errorOf('html')}
            </div>
            <div className="field">
              <label htmlFor="field-text">Text part (optional)</label>
              <span id="field-text-hint" className="hint">
                Left empty, it is generated from the HTML.
              </span>
              <textarea
                id="field-text"
                name="text"
                className={`${styles.code} ${styles.textPart}`}
                value={values.text}
                aria-describedby={describedBy('text', 'field-text-hint')}
                onChange={(event) => change({ text: event.target.value })}
              />
              {errorOf('text')}
            </div>
            <div className="field">
              <label htmlFor="field-audience">Audience</label>
              <span id="field-audience-hint" className="hint">
                Unsubscribed and suppressed contacts are always left out. A segment is resolved at send time:
                whoever matches it then gets the campaign.
              </span>
              <select
                id="field-audience"
                name="audience"
                value={values.audience}
                aria-invalid={state.errors.audience ? true : undefined}
                aria-describedby={describedBy('audience', 'field-audience-hint')}
                onChange={(event) => change({ audience: event.target.value })}
              >
                <option value="all">All subscribed contacts</option>
                {lists.map((list) => (
                  <option key={list.id} value={list.id}>
                    List: {list.name}
                  </option>
                ))}
                {segments.map((segment) => (
                  <option key={segment.id} value={`segment:${segment.id}`}>
                    Segment: {segment.name}
                  </option>
                ))}
              </select>
              {errorOf('audience')}
            </div>
          </div>
          <TrackingFields values={values} onChange={change} />
          <ScheduleFields values={values} state={state} zones={zones} onChange={change} />
          {sendRefusal && values.schedule !== 'draft' ? (
            <p className="form-error" role="note" data-testid="send-refusal">
              {sendRefusal}. You can save the campaign as a draft until then.
            </p>
          ) : null}
          <div className={styles.actions}>
            <button
              type="submit"
              className="button"
              disabled={pending || (sendRefusal !== null && values.schedule !== 'draft')}
            >
              {pending ? 'Saving…' : values.schedule === 'draft' ? 'Save draft' : 'Schedule campaign'}
            </button>
          </div>
        </div>
        <PreviewPanel values={values} contacts={contacts} defaultTestAddress={defaultTestAddress} />
      </div>
    </form>
  )
}
