export { MessageLockedError } from './message-locked-error'
export type {
  Admission,
  CampaignRecipient,
  CampaignRenderer,
  ClaimedMessage,
  Clock,
  DeliveryLogger,
  DeliveryState,
  DeliveryStore,
  HeldClaim,
  Mailer,
  OutgoingMail,
  RenderedMail,
  SendJob,
} from './ports'
export { isPermanentFailure, isSendFailure, type SendFailure } from './send-failure'
export { type SendDeps, type SendOutcome, type SkipReason, sendMessage } from './send-message'
export { UndeliverableMessageError } from './undeliverable-message-error'
