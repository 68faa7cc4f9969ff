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

/** Optional `from` / `replyTo` of `POST /api/v1/messages`. */
export const senderFields = {
  from: senderAddressField(FROM_FIELD_DESCRIPTION).optional(),
  replyTo: senderAddressField(REPLY_TO_FIELD_DESCRIPTION).optional(),
}

const ON_VERIFIED = '`"Name" <local@domain>` or an address on one of your verified sending domains (else 422)'

/** A campaign's: without them, the tenant's default sender as it is when the campaign is dispatched. */
export const campaignSenderFields = {
  from: senderAddressField(
    `The From of the campaign’s mail: ${ON_VERIFIED}. Without it: your default sender when the campaign is sent, else the platform’s address with your name.`,
  ).optional(),
  replyTo: senderAddressField(
    'The Reply-To of the campaign’s mail, any address. Without it: your default Reply-To, if any.',
  ).optional(),
}

/** Saved senders (template, editor forms): null or an empty string clears one. */
const savedField = (description: string) => clearableSenderAddressField(description).optional()

/** A template's: used by mail sent with it unless the request names its own. */
export const savedSenderFields = {
  from: savedField(
    `The From of mail sent with this template unless the request names one: ${ON_VERIFIED}. Null or "": your default sender.`,
  ),
  replyTo: savedField(
    'The Reply-To of mail sent with this template unless the request names one, any address. Null or "": your default Reply-To.',
  ),
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
