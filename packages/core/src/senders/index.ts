export { checkSenderDomain } from './check-sender-domain'
export { NO_SENDER, type SenderChoice, type SenderDomain, type SenderDomains } from './ports'
export { type ResolvedSender, type ResolveSenderInput, resolveSender } from './resolve-sender'
export {
  clearableSenderAddressField,
  FROM_FIELD_DESCRIPTION,
  formatSenderAddress,
  MAX_DISPLAY_NAME_CHARS,
  parseSenderAddress,
  REPLY_TO_FIELD_DESCRIPTION,
  type SenderAddress,
  type SenderAddressCheck,
  senderAddressField,
} from './sender-address'
export {
  campaignSenderFields,
  defaultSenderSchema,
  parseDefaultSender,
  savedSenderFields,
  senderFields,
} from './sender-settings'
export { type DefaultSenderStore, setDefaultSender } from './set-default-sender'
