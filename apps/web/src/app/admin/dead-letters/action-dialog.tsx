'use client'

import { type FormEvent, useEffect, useRef, useState } from 'react'
import styles from '../admin.module.css'

export type DeadLetterAction = 'replay' | 'discard'

const WHAT: Record<DeadLetterAction, { verb: string; effect: string }> = {
  replay: {
    verb: 'Replay',
    effect: 'Each message goes back on its lane once and is tried again. A message sent since is refused.',
  },
  discard: {
    verb: 'Discard',
    effect: 'The dead letters are forgotten; their messages stay failed and are never sent.',
  },
}

/**
 * Asks before a replay or discard, and for the reason the audit log records (required). `onConfirm`
 * resolves to an error message to show, or null when done.
 */
export function ActionDialog({
  action,
  count,
  onConfirm,
  onClose,
}: {
  action: DeadLetterAction
  count: number
  onConfirm(reason: string): Promise<string | null>
  onClose(): void
}) {
  const dialog = useRef<HTMLDialogElement>(null)
  const [reason, setReason] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  useEffect(() => {
    dialog.current?.showModal()
  }, [])
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (reason.trim() === '') {
      setError('Give a reason: it goes into the audit log')
      return
    }
    setBusy(true)
    const failure = await onConfirm(reason.trim())
    setBusy(false)
    if (failure) setError(failure)
    else onClose()
  }
  const { verb, effect } = WHAT[action]
  const noun = count === 1 ? 'dead letter' : `${count} dead letters`
  return (
    <dialog ref={dialog} className={styles.dialog} onClose={onClose} aria-labelledby="action-title">
      <form onSubmit={submit} className="form" noValidate>
        <h2 id="action-title">
          {verb} {noun}?
        </h2>
        <p>{effect}</p>
        <div className="field">
          <label htmlFor="action-reason">Reason (required, kept in the audit log)</label>
          <textarea
            id="action-reason"
            name="reason"
            rows={3}
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'action-reason-error' : undefined}
            maxLength={1000}
            required
          />
          {error ? (
            <p id="action-reason-error" className="field-error" role="alert">
              {error}
            </p>
          ) : null}
        </div>
        <div className={styles.actions}>
          <button type="submit" className={action === 'discard' ? 'button-danger' : 'button'} disabled={busy}>
            {verb}
          </button>
          <button type="button" className="button-secondary" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  )
}
