const options: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
}
const format = new Intl.DateTimeFormat('en-GB', options)
const formatWithSeconds = new Intl.DateTimeFormat('en-GB', { ...options, second: '2-digit' })

/**
 * An instant as text. Server components do not know the reader's zone, so the text says UTC and
 * the machine-readable value sits in `dateTime` for anyone who wants it converted. `seconds`: for
 * steps that follow one another within a minute (a message's events).
 */
export function DateTime({
  value,
  empty = '—',
  seconds = false,
}: {
  value: Date | null
  empty?: string
  seconds?: boolean
}) {
  if (!value) return <span className="muted">{empty}</span>
  return <time dateTime={value.toISOString()}>{(seconds ? formatWithSeconds : format).format(value)}</time>
}
