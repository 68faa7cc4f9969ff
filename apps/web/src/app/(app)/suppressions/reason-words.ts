import type { SuppressionReason } from '@fairlane/core'

/** Each reason in the words the pages use (the API's literal stays in the URL and the export). */
export const REASON_WORDS: Record<SuppressionReason, string> = {
  'hard-bounce': 'Hard bounce',
  complaint: 'Spam complaint',
  unsubscribe: 'Unsubscribed',
  manual: 'Added by hand',
}
