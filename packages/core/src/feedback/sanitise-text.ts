/** The longest diagnostic kept: enough for any SMTP reply a person reads, small enough for every page. */
export const MAX_DIAGNOSTIC_CHARS = 1_000

// C0 and C1 controls (CR, LF and TAB included), DEL, the Unicode line and paragraph separators, and
// the bidirectional overrides and isolates that can make a shown text read other than it is stored.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g
// A lone surrogate cannot be encoded as UTF-8: PostgreSQL and JSON writers would refuse or mangle it.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * Text from a remote server made safe to store and show: every control character (CR/LF included,
 * so nothing read from a bounce can start a new log line or header) becomes a space, whitespace
 * runs collapse, lone surrogates become U+FFFD, and the result is cut to `maxChars` code points with
 * an ellipsis. Invalid UTF-8 must already be U+FFFD (the reader decodes with replacement).
 */
export function sanitiseText(text: string, maxChars = MAX_DIAGNOSTIC_CHARS): string {
  const clean = text.replace(LONE_SURROGATE, '\ufffd').replace(UNSAFE, ' ').replace(/\s+/g, ' ').trim()
  const codePoints = Array.from(clean)
  if (codePoints.length <= maxChars) return clean
  return `${codePoints.slice(0, maxChars - 1).join('')}…`
}

/** `sanitiseText`, or undefined when nothing readable is left. */
export function sanitiseOptional(
  text: string | undefined,
  maxChars = MAX_DIAGNOSTIC_CHARS,
): string | undefined {
  if (text === undefined) return undefined
  const clean = sanitiseText(text, maxChars)
  return clean === '' ? undefined : clean
}
