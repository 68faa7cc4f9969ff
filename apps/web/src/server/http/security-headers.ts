/**
 * The headers every answer of the web process carries — pages, the admin console, the API, 413s and
 * 404s alike — set by the web entry before anything else writes to the response.
 *
 * The Content-Security-Policy allows scripts only from this origin plus inline ones: Next.js's
 * production pages hydrate through inline `<script>` tags (the RSC payload) without a nonce, and
 * nonces would force every page to render per request; `'unsafe-inline'` does not open the campaign
 * preview, which is a sandboxed iframe without `allow-scripts`, so nothing in a campaign's HTML runs
 * whatever the policy says. `frame-ancestors 'none'` (and X-Frame-Options for older browsers) keeps
 * every page out of other sites' frames. Images may come from any https origin, because campaign
 * HTML shown in the preview links its images there.
 */
export function securityHeaders(options: { dev: boolean }): Record<string, string> {
  const directives = [
    "default-src 'self'",
    // Next.js's dev server evaluates code for fast refresh and React's dev call stacks.
    `script-src 'self' 'unsafe-inline'${options.dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "frame-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ]
  return {
    'content-security-policy': directives.join('; '),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'x-frame-options': 'DENY',
  }
}
