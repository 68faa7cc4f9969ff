import { validationFailed } from '../errors/app-error'
import { forbiddenAddressReason, webhookUrlProblem } from './address-rules'
import type { HostAddressLookup, WebhookSettings } from './ports'

/** An IP literal as the URL parser leaves a host: dotted IPv4 (decimal and hex forms normalised) or [IPv6]. */
const IP_LITERAL = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\])$/i

/**
 * Checks a webhook URL where it is saved: the rules that need no DNS (`webhookUrlProblem`), then every
 * address its host resolves to, so a name pointing at 127.0.0.1 or 169.254.169.254 is refused at once
 * instead of failing every delivery. The worker checks again at connect time (DNS can change after
 * this). WEBHOOK_ALLOW_PRIVATE skips the lookup: any address is allowed then. Answers the URL trimmed;
 * a refusal is a 400 naming `url`.
 */
export async function checkWebhookUrl(
  url: string,
  deps: { hosts: HostAddressLookup; settings: WebhookSettings },
): Promise<string> {
  const trimmed = url.trim()
  const problem = webhookUrlProblem(trimmed, { allowPrivate: deps.settings.allowPrivate })
  if (problem !== null) throw urlRefused(problem)
  if (deps.settings.allowPrivate) return trimmed
  const host = new URL(trimmed).hostname
  if (IP_LITERAL.test(host)) return trimmed
  const answer = await deps.hosts.resolve(host)
  if ('error' in answer || answer.addresses.length === 0) {
    const why = 'error' in answer ? answer.error : 'no A or AAAA records'
    throw urlRefused(`url's host ${host} does not resolve (${why})`)
  }
  for (const address of answer.addresses) {
    const reason = forbiddenAddressReason(address)
    if (reason !== null) throw urlRefused(`url must point at a public address: ${host} resolves to ${reason}`)
  }
  return trimmed
}

function urlRefused(message: string) {
  return validationFailed([{ path: 'url', message }])
}
