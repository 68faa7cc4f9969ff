const format = new Intl.DateTimeFormat('en-GB', {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
})

/**
 * An instant as text. Server components do not know the reader's zone, so the text says UTC and
 * the machine-readable value sits in `dateTime` for anyone who wants it converted.
 */
export function DateTime({ value, empty = '—' }: { value: Date | null; empty?: string }) {
  if (!value) return <span className="muted">{empty}</span>
  return <time dateTime={value.toISOString()}>{format.format(value)}</time>
}
