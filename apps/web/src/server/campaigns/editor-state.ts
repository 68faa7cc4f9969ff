/** What the campaign editor form holds, and what the save action answers with. Shared by client and server. */
export interface EditorValues {
  name: string
  /** `"Name" <local@domain>` on a verified domain, or empty for the tenant's default sender. */
  from: string
  /** Any address, or empty for the tenant's default Reply-To. */
  replyTo: string
  subject: string
  html: string
  text: string
  /** `all`, a list id, or `segment:<id>`. */
  audience: string
  schedule: 'draft' | 'now' | 'later'
  /** `YYYY-MM-DDTHH:mm`, the wall time in `timeZone`. */
  local: string
  timeZone: string
  fold: '' | 'earlier' | 'later'
  /** Open and click tracking (new campaigns start from the tenant's defaults). */
  trackOpens: boolean
  trackClicks: boolean
}

export interface EditorState {
  values: EditorValues
  /** Per field (`name`, `from`, `replyTo`, `subject`, `html`, `text`, `audience`, `local`, `timeZone`, `fold`). */
  errors: Partial<Record<keyof EditorValues, string>>
  formError?: string | undefined
  /** The wall time was skipped by a DST change: offer the first valid time after it. */
  gap?: { local: string; suggestion: string; suggestionUtc: string } | undefined
  /** The wall time happens twice: the user picks one. */
  overlap?: { earlierUtc: string; laterUtc: string; earlierOffset: string; laterOffset: string } | undefined
}

export interface PreviewResult {
  subject: string
  html: string
  text: string
  /** Variables the chosen contact does not have: rendered empty, shown as a warning. */
  unknown: string[]
  /** A template that cannot be parsed, per field. */
  errors: string[]
}

/** The resolved schedule shown under the time field as the user types. */
export type ScheduleDescription =
  | { kind: 'ok'; utc: string; offset: string }
  | { kind: 'gap'; suggestion: string; suggestionUtc: string }
  | { kind: 'overlap'; earlierUtc: string; laterUtc: string; earlierOffset: string; laterOffset: string }
  | { kind: 'error'; message: string }

export function emptyValues(): EditorValues {
  return {
    name: '',
    from: '',
    replyTo: '',
    subject: '',
    html: '<p>Hello {{name}},</p>\n<p></p>',
    text: '',
    audience: 'all',
    schedule: 'later',
    local: '',
    timeZone: '',
    fold: '',
    trackOpens: false,
    trackClicks: false,
  }
}

/** `2026-12-24 02:00 UTC`: the UTC side of a schedule, unambiguous for every reader. */
export function formatUtc(instant: Date): string {
  return `${instant.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

/**
 * ICU (and so `Intl.supportedValuesOf`) still reports some zones by names IANA has since replaced;
 * users look for the current ones (Ho Chi Minh City, Kyiv). Both spellings are valid zone names.
 */
const CURRENT_ZONE_NAMES: Record<string, string> = {
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Godthab': 'America/Nuuk',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Louisville': 'America/Kentucky/Louisville',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Europe/Kiev': 'Europe/Kyiv',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Truk': 'Pacific/Chuuk',
}

export function currentZoneName(zone: string): string {
  return CURRENT_ZONE_NAMES[zone] ?? zone
}
