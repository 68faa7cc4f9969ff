import {
  describeUnsubscribe,
  maskEmail,
  PREVIEW_UNSUBSCRIBE_TOKEN,
  type UnsubscribeKey,
  type UnsubscribeOutcome,
  unsubscribeByToken,
  verifyUnsubscribeToken,
} from '@fairlane/core'
import type { Clock } from '@fairlane/core/accept'
import type { Database } from '@fairlane/db'
import { createUnsubscribeStore } from '@fairlane/db/queries/unsubscribe'
import { escapeHtml } from '@fairlane/mail/templates'
import type { Logger } from '../logger'

export interface UnsubscribeDeps {
  db: Database
  key: UnsubscribeKey
  clock: Clock
  logger: Logger
}

/** The form body a mail client sends for RFC 8058 one-click unsubscribe. */
export const ONE_CLICK_BODY = 'List-Unsubscribe=One-Click'
const MAX_FORM_BYTES = 1024

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // The token is in the URL: keep it out of Referer headers and search engines.
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
}

/**
 * `GET /u/:token`: a confirm page that changes nothing. Link scanners and mail previews fetch links
 * with GET, so a GET that unsubscribed would unsubscribe people who never clicked.
 */
export async function showUnsubscribe(token: string, deps: UnsubscribeDeps): Promise<Response> {
  if (token === PREVIEW_UNSUBSCRIBE_TOKEN) return preview()
  const outcome = await describeUnsubscribe(token, { ...deps, store: createUnsubscribeStore(deps.db) })
  if (outcome.kind === 'invalid-token') return invalid()
  if (outcome.kind === 'gone')
    return page(200, 'Unsubscribed', '<p>This address is no longer on the mailing list.</p>')
  const { target } = outcome
  if (target.unsubscribedAt !== null) return done(outcome)
  return page(
    200,
    'Unsubscribe',
    `<p>Stop receiving campaigns from <strong>${escapeHtml(target.tenantName)}</strong> at <strong>${escapeHtml(maskEmail(target.email))}</strong>?</p>
<p>${TRANSACTIONAL_STILL_GO}</p>
<form method="post"><button type="submit">Unsubscribe</button></form>`,
  )
}

/**
 * `POST /u/:token`: unsubscribes at once and answers 200 (no redirect: one-click clients do not
 * follow them, and the confirm form's answer is the page itself). This is both the confirm page's
 * button and RFC 8058 one-click (`List-Unsubscribe=One-Click`, form-encoded). No CSRF token by
 * design: the request is authorised by the signed token in the URL, not by a cookie, so a forged
 * cross-site POST can do nothing a holder of the link could not; and mail providers' one-click
 * POSTs come from their servers, with no page to carry a CSRF token.
 */
export async function submitUnsubscribe(
  request: Request,
  token: string,
  deps: UnsubscribeDeps,
): Promise<Response> {
  // A test send's one-click POST (or its page's button) changes nothing, and says so.
  if (token === PREVIEW_UNSUBSCRIBE_TOKEN) return preview()
  // The signature is checked before a byte of the body is read: a forged link costs no read at all
  // (and the entry caps what a genuine one may send at 4 KB). One-click clients read only the status.
  if (verifyUnsubscribeToken(token, deps.key) === null) return refuse(deps)
  const oneClick = await isOneClick(request)
  const outcome = await unsubscribeByToken(
    token,
    { ...deps, store: createUnsubscribeStore(deps.db) },
    oneClick ? 'one-click' : 'link',
  )
  if (outcome.kind === 'invalid-token') return refuse(deps)
  if (oneClick) return plain(200, 'Unsubscribed\n')
  return done(outcome)
}

function refuse(deps: UnsubscribeDeps): Response {
  deps.logger.info({ reason: 'invalid-token' }, 'unsubscribe refused')
  return invalid()
}

async function isOneClick(request: Request): Promise<boolean> {
  const type = request.headers.get('content-type') ?? ''
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) return false
  const body = await request.text().catch(() => '')
  return body.length <= MAX_FORM_BYTES && new URLSearchParams(body).get('List-Unsubscribe') === 'One-Click'
}

/** What an unsubscribe changes, in the person's words: it is scoped to campaigns (marketing). */
const TRANSACTIONAL_STILL_GO =
  'Messages you ask for, such as sign-in codes and password resets, still reach you.'

function done(outcome: UnsubscribeOutcome): Response {
  if (outcome.kind !== 'found') {
    return page(200, 'Unsubscribed', '<p>This address is no longer on the mailing list.</p>')
  }
  const tenant = `<strong>${escapeHtml(outcome.target.tenantName)}</strong>`
  return page(
    200,
    'Unsubscribed',
    `<p>You are unsubscribed at <strong>${escapeHtml(maskEmail(outcome.target.email))}</strong>.</p>
<p>You will not receive campaigns from ${tenant} any more. ${TRANSACTIONAL_STILL_GO}</p>`,
  )
}

/** `/u/preview`: the footer link of a test send (see `renderPreview`); it names nobody. */
function preview(): Response {
  return page(
    200,
    'Test message link',
    `<p>This is the unsubscribe link of a test message. Nothing was changed: no one was unsubscribed.</p>
<p>In the campaign itself, each recipient's link unsubscribes them from that sender's campaigns.</p>`,
  )
}

function invalid(): Response {
  return page(
    400,
    'Invalid unsubscribe link',
    '<p>This unsubscribe link is not valid: it may have been cut short or changed. Nothing was changed. Please use the link from the email exactly as it is.</p>',
  )
}

function plain(status: number, text: string): Response {
  return new Response(text, { status, headers: { ...HEADERS, 'content-type': 'text/plain; charset=utf-8' } })
}

function page(status: number, title: string, body: string): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Fairlane</title>
<style>
body{margin:0;font-family:ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#14213d;background:#fbfaf7;line-height:1.55}
main{max-width:32rem;margin:4rem auto;padding:2rem;background:#fff;border:1px solid #e3e1da;border-radius:.6rem}
h1{font-size:1.5rem;margin:0 0 1rem}
button{padding:.6rem 1.1rem;border:0;border-radius:.4rem;background:#1d6f5f;color:#fff;font-weight:600;font-size:1rem;cursor:pointer}
button:focus-visible{outline:3px solid #f4a259;outline-offset:2px}
</style></head>
<body><main><h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>
`
  return new Response(html, { status, headers: HEADERS })
}
