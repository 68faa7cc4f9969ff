import type { BounceRecipient } from './feedback-mail'
import { field, parseFieldGroups, reportAddress, untyped } from './report-fields'
import { sanitiseOptional } from './sanitise-text'
import {
  actionForStatus,
  classifyBounce,
  type DsnAction,
  findReplyCode,
  findStatusCode,
  isDsnAction,
  statusFromField,
  statusFromReplyCode,
} from './status-code'

export interface DeliveryStatus {
  reportingMta?: string
  /** Failed and delayed recipients with a status; successes are left out. */
  failures: BounceRecipient[]
  /** Recipients whose status could not be read (no Status, no code in the diagnostic). */
  unreadable: number
  /** Recipients reported delivered, relayed or expanded. */
  successes: number
}

/**
 * Reads a `message/delivery-status` body (RFC 3464 §2.2–2.3): the per-message group, then one group
 * per recipient. A recipient's status comes from `Status`; when that is missing or malformed, from an
 * enhanced code in `Diagnostic-Code`, then from its SMTP reply code; its action from `Action`, else
 * from the status's class. Without any of them the recipient counts as unreadable.
 */
export function readDeliveryStatus(content: string): DeliveryStatus {
  const [perMessage, ...perRecipient] = parseFieldGroups(content)
  const result: DeliveryStatus = { failures: [], unreadable: 0, successes: 0 }
  const reportingMta = sanitiseOptional(untyped(field(perMessage, 'reporting-mta')), 255)
  if (reportingMta) result.reportingMta = reportingMta
  // Some MTAs write the per-message and the first recipient's fields as one group.
  const groups =
    perMessage && field(perMessage, 'final-recipient') ? [perMessage, ...perRecipient] : perRecipient
  for (const group of groups) {
    const rawDiagnostic = untyped(field(group, 'diagnostic-code'))
    const statusField = field(group, 'status')
    const status =
      (statusField !== undefined ? statusFromField(statusField) : undefined) ??
      (rawDiagnostic !== undefined ? findStatusCode(rawDiagnostic) : undefined) ??
      replyStatus(rawDiagnostic)
    const actionField = field(group, 'action')
      ?.toLowerCase()
      .split(/[\s(;]/)[0]
    const action: DsnAction | undefined =
      actionField !== undefined && isDsnAction(actionField)
        ? actionField
        : status !== undefined
          ? actionForStatus(status)
          : undefined
    if (status === undefined || action === undefined) {
      if (action === 'delivered' || action === 'relayed' || action === 'expanded') result.successes += 1
      else result.unreadable += 1
      continue
    }
    const kind = classifyBounce(status, action)
    if (kind === null) {
      result.successes += 1
      continue
    }
    const recipient: BounceRecipient = { action, status, kind }
    const finalRecipient = reportAddress(field(group, 'final-recipient'))
    const originalRecipient = reportAddress(field(group, 'original-recipient'))
    const diagnostic = sanitiseOptional(rawDiagnostic)
    const remoteMta = sanitiseOptional(untyped(field(group, 'remote-mta')), 255)
    if (finalRecipient) recipient.finalRecipient = finalRecipient
    if (originalRecipient) recipient.originalRecipient = originalRecipient
    if (diagnostic) recipient.diagnostic = diagnostic
    if (remoteMta) recipient.remoteMta = remoteMta
    result.failures.push(recipient)
  }
  return result
}

function replyStatus(diagnostic: string | undefined): string | undefined {
  if (diagnostic === undefined) return undefined
  const code = findReplyCode(diagnostic)
  return code === undefined ? undefined : statusFromReplyCode(code, diagnostic)
}
