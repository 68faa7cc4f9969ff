import { compile } from 'html-to-text'

// Compiled once: html-to-text's `convert` builds its selector decision tree on every call, about
// half of a conversion's CPU (a worker's profile with ten thousand campaigns in turn).
const toText = compile({
  wordwrap: 78,
  selectors: [
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
  ],
})

/**
 * The text part generated from an HTML body when the caller gave none: every message gets a text
 * part, because some clients and most spam filters read it. Links keep their URL, images are dropped
 * (their alt text is kept only when present), and lines wrap at 78 characters as RFC 5322 advises.
 */
export function textFromHtml(html: string): string {
  return toText(html).trim()
}
