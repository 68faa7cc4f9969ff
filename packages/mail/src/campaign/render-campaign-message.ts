import { escapeHtml } from '../templates/escape-html'
import { textFromHtml } from '../templates/html-text'
import { type CompiledTemplate, compileTemplate, renderCompiled } from '../templates/template-engine'
import { type CampaignContact, campaignView } from './variables'

export interface CampaignContent {
  subject: string
  html: string
  text?: string | null | undefined
}

export interface RenderCampaignInput {
  campaign: CampaignContent
  contact: CampaignContact
  /** `https://…/u/<token>`: the confirm page, and the RFC 8058 one-click POST target. */
  unsubscribeUrl: string
  /** `mailto:unsubscribe@…?subject=…`, for clients that only know the older mailto form. */
  unsubscribeMailto?: string | undefined
}

export interface RenderedCampaignMessage {
  subject: string
  html: string
  text: string
  headers: Record<string, string>
}

/** Mustache's escaping off: the subject and text are not HTML, and the HTML view is escaped beforehand. */
const PLAIN = { escape: (value: unknown) => String(value) }

/**
 * One recipient's copy of a campaign. Contact data can never inject HTML: every string of the view
 * is escaped before rendering and mustache's own escaping is turned off, so `{{{x}}}` and `{{& x}}`
 * (which skip escaping) get escaped values too. The subject and text are not HTML and are rendered
 * unescaped; the subject loses CR/LF so a value cannot add headers. Unknown variables render empty.
 * Every copy carries an unsubscribe footer and the List-Unsubscribe headers (RFC 2369, RFC 8058).
 */
export function renderCampaignMessage(input: RenderCampaignInput): RenderedCampaignMessage {
  assertHeaderUrl(input.unsubscribeUrl)
  if (input.unsubscribeMailto !== undefined) assertHeaderUrl(input.unsubscribeMailto)
  const view = campaignView(input.contact)
  const templates = compiledTemplatesOf(input.campaign)
  const subject = renderCompiled(templates.subject, view, PLAIN)
    .replace(/[\r\n]+/g, ' ')
    .trim()
  const body = renderCompiled(templates.html, escapeStrings(view), PLAIN)
  const text = renderCompiled(templates.text, view, PLAIN)
  const links = [`<${input.unsubscribeUrl}>`]
  if (input.unsubscribeMailto !== undefined) links.push(`<${input.unsubscribeMailto}>`)
  return {
    subject,
    html: withHtmlFooter(body, input.unsubscribeUrl),
    text: `${text.trimEnd()}\n\n--\nUnsubscribe: ${input.unsubscribeUrl}\n`,
    headers: {
      'List-Unsubscribe': links.join(', '),
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  }
}

/**
 * A campaign's templates, compiled once per campaign object (the renderer keeps one per campaign):
 * the text part's template is the campaign's own text, or one derived from its HTML *template* — not
 * once per recipient (html-to-text costs several milliseconds for a newsletter, which at hundreds of
 * mails a second was most of a worker's CPU). Mustache tags are plain text to html-to-text, so they
 * survive the conversion and are filled in per recipient.
 */
interface CompiledCampaign {
  subject: CompiledTemplate
  html: CompiledTemplate
  text: CompiledTemplate
}

const compiledCampaigns = new WeakMap<CampaignContent, CompiledCampaign>()

function compiledTemplatesOf(campaign: CampaignContent): CompiledCampaign {
  let compiled = compiledCampaigns.get(campaign)
  if (compiled === undefined) {
    compiled = {
      subject: compileTemplate(campaign.subject),
      html: compileTemplate(campaign.html),
      text: compileTemplate(textTemplateOf(campaign)),
    }
    compiledCampaigns.set(campaign, compiled)
  }
  return compiled
}

function textTemplateOf(campaign: CampaignContent): string {
  if (campaign.text !== undefined && campaign.text !== null && campaign.text.trim() !== '')
    return campaign.text
  return textFromHtml(campaign.html)
}

function withHtmlFooter(html: string, unsubscribeUrl: string): string {
  const footer =
    '<hr style="border:none;border-top:1px solid #ddd;margin:24px 0 12px">' +
    '<p style="font-size:12px;color:#666;font-family:sans-serif">' +
    `You receive this because you subscribed. <a href="${escapeHtml(unsubscribeUrl)}">Unsubscribe</a></p>`
  const close = html.search(/<\/body\s*>/i)
  return close === -1 ? `${html}\n${footer}` : `${html.slice(0, close)}${footer}${html.slice(close)}`
}

function escapeStrings(value: unknown): unknown {
  if (typeof value === 'string') return escapeHtml(value)
  if (Array.isArray(value)) return value.map(escapeStrings)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, escapeStrings(item)]))
  }
  return value
}

/** A URL inside `<…>` in a header: no brackets, commas or line breaks that would end it early. */
function assertHeaderUrl(url: string): void {
  if (/[\s<>,]/.test(url)) throw new TypeError(`not usable in List-Unsubscribe: ${JSON.stringify(url)}`)
}
