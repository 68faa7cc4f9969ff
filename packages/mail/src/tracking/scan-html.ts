import { Parser } from 'htmlparser2'

/** One `<a href>` of an HTML document: its decoded value and where its raw value sits in the source. */
export interface HtmlLink {
  /** The value as a browser reads it: entities decoded, surrounding whitespace trimmed. */
  url: string
  /** `html.slice(valueStart, valueEnd)` is the attribute's raw value, between its quotes if it has them. */
  valueStart: number
  valueEnd: number
}

export interface ScannedHtml {
  links: HtmlLink[]
  /** Where the last explicit `</body>` starts; null when the document has none. */
  bodyCloseAt: number | null
}

/**
 * Finds every anchor's href with its position, with a real HTML tokenizer (htmlparser2), not a
 * regular expression: links inside comments, scripts and styles are not links, attribute names are
 * case-blind, and values may be double-, single- or un-quoted. Only the positions are used to edit
 * the source, so every other byte of the document (entities, whitespace, odd markup) stays as it was.
 */
export function scanHtml(html: string): ScannedHtml {
  const links: HtmlLink[] = []
  let bodyCloseAt: number | null = null
  let tag = ''
  let hrefSeen = false
  const parser = new Parser(
    {
      onopentagname(name) {
        tag = name
        hrefSeen = false
      },
      onattribute(name, value, quote) {
        // The first href counts, as in browsers.
        if (tag !== 'a' || name !== 'href' || hrefSeen) return
        hrefSeen = true
        const position = valuePosition(html, parser.startIndex, parser.endIndex, quote)
        if (position) links.push({ url: value.trim(), ...position })
      },
      onclosetag(name, isImplied) {
        if (name === 'body' && !isImplied) bodyCloseAt = parser.startIndex
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  )
  parser.write(html)
  parser.end()
  return { links, bodyCloseAt }
}

/**
 * The raw value's bounds inside `name = "value"`, which the parser reports from the name's first
 * character to just past the closing quote (quoted) or to the value's end (unquoted).
 */
function valuePosition(
  html: string,
  attributeStart: number,
  attributeEnd: number,
  quote: string | null | undefined,
): { valueStart: number; valueEnd: number } | null {
  const equals = html.indexOf('=', attributeStart)
  if (equals === -1 || equals >= attributeEnd) return null
  let start = equals + 1
  while (start < attributeEnd && /\s/.test(html[start] as string)) start++
  if (quote === '"' || quote === "'") {
    if (html[start] !== quote || html[attributeEnd - 1] !== quote) return null
    return { valueStart: start + 1, valueEnd: attributeEnd - 1 }
  }
  return { valueStart: start, valueEnd: attributeEnd }
}
