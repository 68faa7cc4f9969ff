/** Milliseconds as a short age: `0 s`, `4.2 s`, `3 min 5 s`, `2 h 10 min`. */
export function formatAge(ms: number): string {
  if (ms < 60_000) return `${ms < 10_000 && ms > 0 ? (ms / 1000).toFixed(1) : Math.round(ms / 1000)} s`
  const seconds = Math.round(ms / 1000)
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`
}

export const formatCount = (value: number) => value.toLocaleString('en')

const timeFormat = new Intl.DateTimeFormat('en-GB', {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
})

/** An ISO instant as text, in UTC like the rest of the app's server-rendered times. */
export function formatInstant(iso: string | null): string {
  return iso ? timeFormat.format(new Date(iso)) : '—'
}

/** Lane colours, the same on every chart. */
export const LANE_COLOURS = { critical: '#a4161a', default: '#1d6f5f', bulk: '#f4a259' } as const

/** Series colours for tenants (cycled), `others` in grey. */
export const SERIES_COLOURS = ['#1d6f5f', '#f4a259', '#3a6ea5', '#a4161a', '#7b5ea7', '#5c946e', '#c9a227']
export const OTHERS_COLOUR = '#9a978f'
