'use client'

import { useState } from 'react'

/** Copies `text` to the clipboard and says so; the text stays selectable for browsers without clipboard access. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle')
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setCopied('copied'),
      () => setCopied('failed'),
    )
  }
  return (
    <>
      <button type="button" className="button-secondary" onClick={copy}>
        {label}
      </button>
      <span role="status" className="muted">
        {copied === 'copied'
          ? ' Copied to the clipboard'
          : copied === 'failed'
            ? ' Select the key and copy it'
            : ''}
      </span>
    </>
  )
}
