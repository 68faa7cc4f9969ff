/**
 * The former UTC-only `DateTime`, kept as a name for pages not yet moved to `LocalTime` (the API keys
 * page while another branch rewrites it); new code imports `LocalTime`.
 */
export { LocalTime as DateTime } from './local-time'
