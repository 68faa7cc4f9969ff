'use client'

import { useState } from 'react'

interface CopyButtonProps {
  text: string
  /** The button's visible text. */
  label?: string
  /** Its accessible name when the visible text alone does not say what is copied ("Copy DKIM value"). */
  ariaLabel?: string
  /** Said when the browser refuses clipboard access: how to copy by hand instead. */
  failedHint?: string
}

/** Copies `text` to the clipboard and says so; the text stays selectable for browsers without clipboard access. */
export function CopyButton({
  text,
  label = 'Copy',
  ariaLabel,
  failedHint = 'Select the text and copy it',
}: CopyButtonProps) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle')
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setCopied('copied'),
      () => setCopied('failed'),
    )
  }
  return (
    <>
      <button type="button" className="button-secondary" onClick={copy} aria-label={ariaLabel}>
        {label}
      </button>
      <span role="status" className="muted">
        {copied === 'copied' ? ' Copied to the clipboard' : copied === 'failed' ? ` ${failedHint}` : ''}
      </span>
    </>
  )
}
