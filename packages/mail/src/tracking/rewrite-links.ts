import { escapeHtml } from '../templates/escape-html'
import { type HtmlLink, scanHtml } from './scan-html'

/**
 * Whether an href may be tracked: an absolute http(s) URL, without template placeholders (a
 * per-recipient value has no tracked link of its own). `mailto:`, `tel:`, `#anchors` and relative
 * links are the recipient's client's business and are left alone.
 */
export function isTrackableUrl(url: string): boolean {
  if (!/^https?:\/\//i.test(url)) return false
  if (/\{\{|\}\}|%7b%7b|%7d%7d/i.test(url)) return false
  return URL.canParse(url)
}

/** The distinct trackable hrefs of a document (or a campaign's template), in order of appearance. */
export function trackableUrls(html: string, keep: (url: string) => boolean = () => false): string[] {
  const urls = new Set<string>()
  for (const link of scanHtml(html).links) {
    if (isTrackableUrl(link.url) && !keep(link.url)) urls.add(link.url)
  }
  return [...urls]
}

export interface TrackHtmlOptions {
  /** The href's replacement (`APP_URL/t/c/<token>`), or null to leave that link as it is. */
  clickUrl?: ((url: string) => string | null) | undefined
  /** The open pixel's URL (`APP_URL/t/o/<token>`); none when opens are not tracked. */
  pixelUrl?: string | undefined
}

/**
 * Rewrites the links `clickUrl` names and adds the open pixel, editing only the href values in place:
 * entities, quoting and every other byte of the document stay as written. Links are only ever
 * replaced by what `clickUrl` returns for their decoded value; the caller decides which (never the
 * unsubscribe link, never one it has no tracked link for).
 */
export function trackHtml(html: string, options: TrackHtmlOptions): string {
  const scanned = scanHtml(html)
  const edits: { at: number; end: number; text: string }[] = []
  if (options.clickUrl) {
    for (const link of scanned.links) {
      const replacement = replacementOf(link, options.clickUrl)
      if (replacement !== null) edits.push({ at: link.valueStart, end: link.valueEnd, text: replacement })
    }
  }
  if (options.pixelUrl !== undefined) {
    const at = scanned.bodyCloseAt ?? html.length
    edits.push({ at, end: at, text: pixelTag(options.pixelUrl) })
  }
  let result = ''
  let from = 0
  for (const edit of edits) {
    result += html.slice(from, edit.at) + edit.text
    from = edit.end
  }
  return result + html.slice(from)
}

function replacementOf(link: HtmlLink, clickUrl: (url: string) => string | null): string | null {
  if (!isTrackableUrl(link.url)) return null
  const replacement = clickUrl(link.url)
  // Escaped for any quoting: a replacement can never end the attribute early.
  return replacement === null ? null : escapeHtml(replacement)
}

/** 1×1, hidden from layout and from screen readers (empty alt). */
export function pixelTag(url: string): string {
  return (
    `<img src="${escapeHtml(url)}" width="1" height="1" alt="" ` +
    'style="display:block;width:1px;height:1px;border:0;margin:0;padding:0" />'
  )
}
