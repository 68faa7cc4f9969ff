import type { MessageAuth } from './auth'
import type { StoredMessage } from './store'

/** How many messages the inbox page lists; the JSON API has them all. */
export const INBOX_LIMIT = 200

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/**
 * Escapes text for both element content and quoted attribute values. Every value that came in
 * over SMTP goes through here: the messages are written by whoever can reach port 2525.
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char)
}

const STYLE = `
:root { color-scheme: light dark; --muted: #6b7280; --line: #d1d5db; --hover: #eef2ff; --accent: #4338ca; }
@media (prefers-color-scheme: dark) { :root { --muted: #9ca3af; --line: #374151; --hover: #1e1b4b; --accent: #a5b4fc; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
header { display: flex; align-items: baseline; gap: 1rem; padding: 1rem 1.5rem; border-bottom: 1px solid var(--line); }
header h1 { margin: 0; font-size: 1.1rem; }
header .meta { color: var(--muted); }
header nav { margin-left: auto; display: flex; gap: 1rem; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
main { padding: 1rem 1.5rem 2rem; }
table { width: 100%; border-collapse: collapse; table-layout: fixed; }
th, td { text-align: left; padding: 0; border-bottom: 1px solid var(--line); }
th { padding: .4rem .6rem; color: var(--muted); font-weight: 600; font-size: .8rem; text-transform: uppercase; }
td a { display: block; padding: .45rem .6rem; color: inherit; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
td a:hover { text-decoration: none; }
tbody tr:hover { background: var(--hover); }
col.received { width: 11rem; } col.from, col.to { width: 22%; } col.dkim { width: 14rem; } col.receiver { width: 9rem; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 999px; font-size: .75rem; font-weight: 600; text-transform: uppercase; border: 1px solid currentColor; }
.badge.pass { color: #15803d; } .badge.fail { color: #b91c1c; } .badge.none { color: var(--muted); }
.domain { margin-left: .4rem; font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
time { font-variant-numeric: tabular-nums; color: var(--muted); }
.empty { color: var(--muted); padding: 2rem 0; text-align: center; }
h2 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0; }
dt { color: var(--muted); } dd { margin: 0; overflow-wrap: anywhere; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; padding: .75rem; border: 1px solid var(--line); border-radius: 6px; margin: 0; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
iframe { width: 100%; height: 32rem; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
.headers td, .headers th { padding: .3rem .6rem; vertical-align: top; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
.headers th { width: 14rem; text-transform: none; font-weight: 600; }
`

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`
}

/** "2024-05-01 12:34:56" in UTC: sortable at a glance, and the full ISO value stays in the tooltip. */
function shortTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`
}

function time(iso: string): string {
  return `<time datetime="${escapeHtml(iso)}" title="${escapeHtml(iso)}">${escapeHtml(shortTime(iso))}</time>`
}

/**
 * The DKIM verdict as a badge with the signing domain: "PASS d=example.com". The title says more
 * (why it failed, SPF and DMARC) for whoever hovers.
 */
export function authBadge(auth: MessageAuth): string {
  const details = [
    `DKIM ${auth.dkim}`,
    auth.dkimDomain && `d=${auth.dkimDomain}${auth.dkimSelector ? ` s=${auth.dkimSelector}` : ''}`,
    auth.dkimReason && `(${auth.dkimReason})`,
    auth.spf && `SPF ${auth.spf}${auth.spfDomain ? ` for ${auth.spfDomain}` : ''}`,
    auth.dmarc && `DMARC ${auth.dmarc}`,
    auth.aligned !== undefined && (auth.aligned ? 'aligned with From' : 'not aligned with From'),
  ].filter(Boolean)
  const domain = auth.dkimDomain ? `<span class="domain">d=${escapeHtml(auth.dkimDomain)}</span>` : ''
  return `<span class="badge ${auth.dkim}" title="${escapeHtml(details.join(', '))}">DKIM ${auth.dkim}</span>${domain}`
}

/** The receiver that took the message, by name; "sink" for the usual listener. */
function receiverLabel(message: StoredMessage): string {
  return message.receiver?.name ?? 'sink'
}

/** "google (127.0.0.10:2525) from 127.0.0.2": which receiver, and the egress address it came from. */
function receiverTitle(message: StoredMessage): string {
  const { receiver, sourceAddress } = message
  const from = sourceAddress ? ` from ${sourceAddress}` : ''
  return receiver
    ? `${receiver.name} (${receiver.address}:${receiver.port})${from}`
    : `the sink's usual listener${from}`
}

/** The inbox: the given messages (already newest first) in a table, each row linking to its view. */
export function renderInbox(messages: readonly StoredMessage[], total: number): string {
  const rows = messages
    .map((message) => {
      const href = `/view/${encodeURIComponent(message.id)}`
      const cell = (content: string, title: string) =>
        `<td><a href="${escapeHtml(href)}" title="${escapeHtml(title)}">${content}</a></td>`
      return `<tr>${cell(time(message.receivedAt), message.receivedAt)}${cell(escapeHtml(message.from), message.from)}${cell(escapeHtml(message.to), message.to)}${cell(escapeHtml(message.subject || '(no subject)'), message.subject)}${cell(authBadge(message.auth), `DKIM ${message.auth.dkim}`)}${cell(escapeHtml(receiverLabel(message)), receiverTitle(message))}</tr>`
    })
    .join('\n')
  const shown = total > messages.length ? `latest ${messages.length} of ${total}` : `${total}`
  const table =
    messages.length === 0
      ? '<p class="empty">No messages yet. Send mail to the SMTP port and reload.</p>'
      : `<table>
<colgroup><col class="received"><col class="from"><col class="to"><col><col class="dkim"><col class="receiver"></colgroup>
<thead><tr><th>Received (UTC)</th><th>From</th><th>To</th><th>Subject</th><th>DKIM</th><th>Receiver</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`
  return page(
    'mailsink inbox',
    `<header><h1>mailsink</h1><span class="meta">${escapeHtml(shown)} message${total === 1 ? '' : 's'}</span>
<nav><a href="/">Reload</a><a href="/faults">Faults</a><a href="/receivers">Receivers</a><a href="/dns/records">DNS records</a><a href="/health">Health</a></nav></header>
<main>
${table}
</main>`,
  )
}

/** One message: envelope summary, text body, HTML body in a sandbox, and every header. */
export function renderMessage(message: StoredMessage): string {
  const { auth } = message
  const summary = [
    ['From', message.from],
    ['Envelope from', message.envelope.from || '<> (null sender)'],
    ['To (envelope)', message.to],
    ['Subject', message.subject],
    ['Received', message.receivedAt],
    ['Message-ID', message.messageId ?? ''],
    ['Receiver', receiverTitle(message)],
    ['Sink id', message.id],
  ]
    .map(([name = '', value = '']) => `<dt>${escapeHtml(name)}</dt><dd>${escapeHtml(value)}</dd>`)
    .join('')
  const checks = [
    auth.dkimReason && `<dt>DKIM result</dt><dd>${escapeHtml(auth.dkimReason)}</dd>`,
    auth.spf &&
      `<dt>SPF</dt><dd>${escapeHtml(`${auth.spf}${auth.spfDomain ? ` (${auth.spfDomain})` : ''}`)}</dd>`,
    auth.dmarc &&
      `<dt>DMARC</dt><dd>${escapeHtml(`${auth.dmarc}${auth.aligned === undefined ? '' : auth.aligned ? ', DKIM aligned with From' : ', DKIM not aligned with From'}`)}</dd>`,
  ]
    .filter(Boolean)
    .join('')
  // An empty sandbox attribute forbids scripts, forms, popups and same-origin access, so a hostile
  // message cannot touch the inbox; srcdoc keeps the HTML off any URL the sink would have to serve.
  const html =
    message.html === null
      ? ''
      : `<h2>HTML</h2>
<iframe sandbox="" referrerpolicy="no-referrer" title="HTML body" srcdoc="${escapeHtml(message.html)}"></iframe>`
  const headers = Object.entries(message.headers)
    .map(([name, value]) => `<tr><th>${escapeHtml(name)}</th><td>${escapeHtml(value)}</td></tr>`)
    .join('\n')
  return page(
    message.subject || '(no subject)',
    `<header><h1>${escapeHtml(message.subject || '(no subject)')}</h1>
<nav><a href="/">Inbox</a><a href="/messages/${escapeHtml(encodeURIComponent(message.id))}">JSON</a></nav></header>
<main>
<dl>${summary}<dt>DKIM</dt><dd>${authBadge(auth)}</dd>${checks}</dl>
<h2>Text</h2>
<pre>${escapeHtml(message.text || '(no text part)')}</pre>
${html}
<h2>Headers</h2>
<table class="headers"><tbody>
${headers}
</tbody></table>
</main>`,
  )
}

export function renderNotFound(id: string): string {
  return page(
    'Message not found',
    `<header><h1>Message not found</h1><nav><a href="/">Inbox</a></nav></header>
<main><p class="empty">No message with id ${escapeHtml(id)}: it may have been deleted or pushed out of the ring.</p></main>`,
  )
}
