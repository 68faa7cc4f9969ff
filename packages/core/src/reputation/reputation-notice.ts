import type { ReputationStage } from './guardrails'

const WORDS: Record<Exclude<ReputationStage, 'ok'>, { subject: string; what: string }> = {
  warn: {
    subject: 'Your bounce or complaint rate is high',
    what: 'Nothing is slowed yet. If the rate keeps rising, your campaigns are slowed, then paused: clean the list your last campaigns went to (remove the addresses that bounced, mail only people who asked).',
  },
  slow: {
    subject: 'Your campaigns are slowed',
    what: 'Your campaign mail now gets a quarter of its usual share of the sending lane, until the rate falls. Your login codes and other API mail are not affected.',
  },
  pause: {
    subject: 'Your campaigns are paused',
    what: 'No campaign mail leaves until the Fairlane team resumes your account: reply with what caused it. Your campaigns’ remaining recipients are kept, and your login codes and other API mail still go out.',
  },
}

/**
 * The mail that tells a tenant's owners and admins the reputation guardrail moved them to a worse
 * stage: the stage, the rate behind it, what it does and does not stop, and where to look.
 */
export function reputationNotice(input: {
  stage: Exclude<ReputationStage, 'ok'>
  reason: string
  appUrl: string
}): { subject: string; text: string; html: string } {
  const words = WORDS[input.stage]
  const dashboard = `${input.appUrl.replace(/\/$/, '')}/dashboard`
  const text = [
    `${words.subject}: ${input.reason}.`,
    '',
    'Mailbox providers judge every sender on Fairlane’s shared addresses by their bounce and complaint rates.',
    words.what,
    '',
    `Your dashboard: ${dashboard}`,
  ].join('\n')
  const html = `<p><strong>${escapeHtml(words.subject)}</strong>: ${escapeHtml(input.reason)}.</p>
<p>Mailbox providers judge every sender on Fairlane’s shared addresses by their bounce and complaint rates. ${escapeHtml(words.what)}</p>
<p><a href="${escapeHtml(dashboard)}">Your dashboard</a></p>`
  return { subject: words.subject, text, html }
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
