'use client'

import { useEffect, useState, useTransition } from 'react'
import type { PreviewResult } from '@/server/campaigns/editor-state'
import { previewCampaignAction, sendTestAction, type TestSendResult } from './actions'
import styles from './campaigns.module.css'

interface Props {
  /** The content to render; the campaign and template editors both pass their fields. */
  values: { subject: string; html: string; text: string; from?: string; replyTo?: string }
  contacts: { id: string; email: string; name: string | null }[]
  /** Null hides the test send (the template editor has none: a test goes through a campaign). */
  defaultTestAddress: string | null
  /** How the unknown-variable warning starts; it lists the variables after it. */
  unknownLabel?: string | undefined
  /** A line under the title saying how this preview differs from what is sent, if it does. */
  note?: string | undefined
}

/**
 * The live preview: rendered on the server (the same function that renders real mail) for the chosen
 * contact and shown in a sandboxed iframe, so the campaign's HTML can run no script in the app.
 */
export function PreviewPanel({
  values,
  contacts,
  defaultTestAddress,
  unknownLabel = 'Not known for this contact, rendered empty:',
  note,
}: Props) {
  const [contactId, setContactId] = useState(contacts[0]?.id ?? '')
  const [preview, setPreview] = useState<PreviewResult | null>(null)
  const [to, setTo] = useState(defaultTestAddress ?? '')
  const [testResult, setTestResult] = useState<TestSendResult | null>(null)
  const [, startPreview] = useTransition()
  const [sending, startSend] = useTransition()
  const { subject, html, text } = values

  useEffect(() => {
    const timer = setTimeout(() => {
      startPreview(async () => {
        setPreview(await previewCampaignAction({ subject, html, text, contactId: contactId || null }))
      })
    }, 300)
    return () => clearTimeout(timer)
  }, [subject, html, text, contactId])

  const sendTest = () => {
    setTestResult(null)
    startSend(async () => {
      const sender = { from: values.from ?? '', replyTo: values.replyTo ?? '' }
      setTestResult(
        await sendTestAction({ subject, html, text, contactId: contactId || null, to, ...sender }),
      )
    })
  }

  return (
    <section className={`card ${styles.stack}`} aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      {note ? <p className="hint">{note}</p> : null}
      <div className="field">
        <label htmlFor="preview-contact">Preview for</label>
        <select id="preview-contact" value={contactId} onChange={(event) => setContactId(event.target.value)}>
          {contacts.length === 0 ? (
            <option value="">A sample contact (you have no contacts yet)</option>
          ) : null}
          {contacts.map((contact) => (
            <option key={contact.id} value={contact.id}>
              {contact.name ? `${contact.name} <${contact.email}>` : contact.email}
            </option>
          ))}
        </select>
      </div>
      {preview && preview.errors.length > 0 ? (
        <div className="form-error" role="alert">
          {preview.errors.map((error) => (
            <p key={error}>{error}</p>
          ))}
        </div>
      ) : null}
      {preview && preview.unknown.length > 0 ? (
        <p className={styles.warning} role="status" data-testid="unknown-variables">
          {unknownLabel} {preview.unknown.map((name) => `{{${name}}}`).join(', ')}
        </p>
      ) : null}
      <p className={styles.subjectLine}>
        <strong>Subject:</strong> <span data-testid="preview-subject">{preview?.subject ?? ''}</span>
      </p>
      <iframe
        title="Campaign preview"
        className={styles.frame}
        // No allow-scripts, so nothing in the campaign's HTML can run; same-origin only lets the
        // browser paint it in-process (screenshots, zoom), it grants nothing without scripts.
        sandbox="allow-same-origin"
        srcDoc={preview?.html ?? ''}
        data-testid="preview-frame"
      />
      {defaultTestAddress === null ? null : (
        <div className={styles.row}>
          <div className="field">
            <label htmlFor="test-to">Send a test to</label>
            <input id="test-to" type="email" value={to} onChange={(event) => setTo(event.target.value)} />
          </div>
          <button
            type="button"
            className="button-secondary"
            onClick={sendTest}
            disabled={sending || to === ''}
          >
            {sending ? 'Sending…' : 'Send test'}
          </button>
        </div>
      )}
      {testResult ? (
        <p className={testResult.ok ? 'notice' : 'form-error'} role="status">
          {testResult.message}
        </p>
      ) : null}
    </section>
  )
}
