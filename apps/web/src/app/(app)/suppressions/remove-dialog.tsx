'use client'

import { type ReactNode, useEffect, useId, useRef, useState } from 'react'
import { removeSuppressionAction } from './actions'
import styles from './suppressions.module.css'

export interface RemovableEntry {
  email: string
  /** The reason in words (`REASON_WORDS`). */
  reasonWords: string
  reason: string
  detail: string | null
  /** When it was suppressed, as the table shows it (a server-rendered LocalTime). */
  when: ReactNode
}

/**
 * The Remove button of one row and the dialog that asks first, quoting why the address was
 * suppressed (the bounce's diagnostic, the complaint, the note) and saying that mail to it resumes.
 */
export function RemoveSuppression({
  entry,
  back,
}: {
  entry: RemovableEntry
  /** The list's search and filter, so the page comes back as it was. */
  back: { email: string; reason: string }
}) {
  const [open, setOpen] = useState(false)
  const [busy, setBusy] = useState(false)
  const dialog = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  const whyId = useId()
  useEffect(() => {
    if (open) dialog.current?.showModal()
  }, [open])
  return (
    <>
      <button
        type="button"
        className="button-danger"
        onClick={() => setOpen(true)}
        aria-label={`Remove ${entry.email} from the suppression list`}
      >
        Remove
      </button>
      {open ? (
        <dialog
          ref={dialog}
          className={styles.dialog}
          onClose={() => setOpen(false)}
          aria-labelledby={titleId}
          aria-describedby={whyId}
        >
          <form action={removeSuppressionAction} onSubmit={() => setBusy(true)} className="form">
            <input type="hidden" name="email" value={entry.email} />
            <input type="hidden" name="back-email" value={back.email} />
            <input type="hidden" name="back-reason" value={back.reason} />
            <h2 id={titleId}>Remove {entry.email}?</h2>
            <div id={whyId}>
              <p>
                It was suppressed on {entry.when} because of: <strong>{entry.reasonWords}</strong>
                {entry.detail ? (
                  <>
                    {' '}
                    — “<span className={styles.quote}>{entry.detail}</span>”
                  </>
                ) : null}
                .
              </p>
              <p>
                {entry.reason === 'unsubscribe'
                  ? 'Campaign mail to this address will be sent again. A contact who unsubscribed stays unsubscribed until you resubscribe them, on their request, from their contact page.'
                  : 'Sending will resume to this address: campaigns and API mail to it will be delivered again, and its soft-bounce count starts from zero.'}
                {entry.reason === 'hard-bounce' || entry.reason === 'complaint'
                  ? ' Mailing an address that bounces or complains again hurts your sending reputation.'
                  : ''}
              </p>
            </div>
            <div className={styles.actions}>
              <button type="submit" className="button-danger" disabled={busy}>
                {busy ? 'Removing…' : 'Remove and resume sending'}
              </button>
              <button type="button" className="button-secondary" onClick={() => dialog.current?.close()}>
                Cancel
              </button>
            </div>
          </form>
        </dialog>
      ) : null}
    </>
  )
}
