import { classifyConnectionFailure, classifyReply, type ReplyClass } from '../replies/classify'
import { isMxSendFailure, type SmtpReply } from './smtp-failure'

/**
 * What a failed MX delivery tells about its provider: the class of the reply that decided it (or of
 * the connection failure, for a host that refused or dropped us before saying anything), and the
 * reply as the provider wrote it, codes first, for the message's `deferred` event and the console.
 * Undefined for failures that are not the provider's answer: a DNS lookup, a private address refused
 * by Fairlane itself, an error that did not come from the MX transport.
 */
export function readMxReply(
  error: unknown,
  tidy: (reply: string) => string = (reply) => reply,
): { class: ReplyClass; reply: string } | undefined {
  if (!isMxSendFailure(error)) return undefined
  const { phase, reply } = error.smtp
  if (reply) return { class: classifyReply(reply), reply: tidy(replyLine(reply)) }
  if (phase === 'dns' || phase === 'policy') return undefined
  return { class: classifyConnectionFailure(phase), reply: tidy(`${phase}: ${error.message}`) }
}

/** `421 4.7.28 Our system has detected …`: one line, as a log or a timeline shows it. */
export function replyLine(reply: SmtpReply): string {
  const text = reply.text.replace(/\s*\n\s*/g, ' ').trim()
  return [String(reply.code), reply.enhanced, text].filter(Boolean).join(' ')
}
