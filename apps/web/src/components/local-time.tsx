import { getReaderTimeZone } from '@/server/reader-time-zone'
import { formatInZone, formatUtcTitle } from './local-time-format'

/**
 * An instant in the reader's zone (their profile's, else their browser's), with the UTC time on
 * hover and the machine-readable value in `dateTime`. A server component: the text is written once,
 * on the server, in the zone the request resolved, so the browser has nothing to re-format.
 * `seconds`: for steps that follow one another within a minute (a message's events).
 */
export async function LocalTime({
  value,
  empty = '—',
  seconds = false,
}: {
  value: Date | null
  empty?: string
  seconds?: boolean
}) {
  if (!value) return <span className="muted">{empty}</span>
  const { zone } = await getReaderTimeZone()
  return (
    <time dateTime={value.toISOString()} title={formatUtcTitle(value)}>
      {formatInZone(value, zone, { seconds })}
    </time>
  )
}
