import { escapeHtml } from './escape-html'

export interface LayoutInput {
  /** The document title, also what a screen reader announces first. */
  title: string
  /** Shown by inbox lists next to the subject; never secrets (it shows on lock screens too). */
  preheader: string
  /** Already-escaped HTML for the card, built by the template from escaped values. */
  bodyHtml: string
  /** Plain text for the small print under the card. */
  footer: string
}

const FONT = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"

/** Inline styles only: many clients strip `<style>` blocks. Colours keep a 4.5:1 contrast or better. */
export const STYLE = {
  heading: `margin:0 0 16px;font-family:${FONT};font-size:22px;line-height:30px;font-weight:600;color:#111827;`,
  paragraph: `margin:0 0 16px;font-family:${FONT};font-size:16px;line-height:24px;color:#1f2937;`,
  small: `margin:0 0 12px;font-family:${FONT};font-size:14px;line-height:20px;color:#4b5563;`,
  code:
    "margin:8px 0 24px;padding:16px 12px;font-family:'SFMono-Regular', Menlo, Consolas, monospace;" +
    'font-size:32px;line-height:40px;font-weight:700;letter-spacing:6px;text-align:center;' +
    'color:#111827;background-color:#f3f4f6;border-radius:8px;',
  button:
    `display:inline-block;padding:12px 24px;font-family:${FONT};font-size:16px;line-height:24px;` +
    'font-weight:600;color:#ffffff;background-color:#1d4ed8;border-radius:6px;text-decoration:none;',
  link: 'color:#1d4ed8;text-decoration:underline;word-break:break-all;',
} as const

/**
 * The shell every built-in message shares: a centred 560px card on a light grey page, built from
 * presentation tables (the only layout Outlook renders reliably), with a hidden preheader.
 */
export function renderLayout(input: LayoutInput): string {
  return `<!DOCTYPE html>
<html lang="en" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${escapeHtml(input.title)}</title>
</head>
<body style="margin:0;padding:0;background-color:#f4f5f7;">
<div style="display:none;max-height:0;overflow:hidden;opacity:0;mso-hide:all;" aria-hidden="true">${escapeHtml(input.preheader)}</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:#f4f5f7;">
<tr><td align="center" style="padding:32px 16px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:560px;background-color:#ffffff;border:1px solid #e5e7eb;border-radius:12px;">
<tr><td style="padding:32px 32px 16px;">
${input.bodyHtml}
</td></tr>
</table>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:560px;">
<tr><td style="padding:16px 32px;">
<p style="${STYLE.small}text-align:center;">${escapeHtml(input.footer)}</p>
</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`
}
