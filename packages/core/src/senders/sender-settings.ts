import { z } from 'zod'
import { validationFailed } from '../errors/app-error'
import { fieldIssues } from '../errors/zod-issues'
import type { SenderChoice } from './ports'
import {
  clearableSenderAddressField,
  FROM_FIELD_DESCRIPTION,
  REPLY_TO_FIELD_DESCRIPTION,
  senderAddressField,
} from './sender-address'

/** Optional `from` / `replyTo` of a request body (messages, campaigns, templates). */
export const senderFields = {
  from: senderAddressField(FROM_FIELD_DESCRIPTION).optional(),
  replyTo: senderAddressField(REPLY_TO_FIELD_DESCRIPTION).optional(),
}

/** Saved senders (campaign, template, tenant default): null or an empty string clears one. */
const savedField = (description: string) => clearableSenderAddressField(description).optional()

export const savedSenderFields = {
  from: savedField(FROM_FIELD_DESCRIPTION),
  replyTo: savedField(REPLY_TO_FIELD_DESCRIPTION),
}

export const defaultSenderSchema = z.strictObject({
  from: savedField(
    'The From of mail that names none: `"Name" <local@domain>` or an address on one of your verified domains; null or "" clears it (mail then goes from the platform’s address with your name).',
  ),
  replyTo: savedField('The Reply-To of mail that names none; null or "" clears it.'),
})

/** The default sender settings (form or API); throws a 400 naming `from` / `replyTo`. */
export function parseDefaultSender(body: unknown): SenderChoice {
  const parsed = defaultSenderSchema.safeParse(body)
  if (!parsed.success) throw validationFailed(fieldIssues(parsed.error))
  return { from: parsed.data.from ?? null, replyTo: parsed.data.replyTo ?? null }
}
