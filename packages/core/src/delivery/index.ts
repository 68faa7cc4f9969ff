export {
  DELIVERY_ERROR_CODES,
  DELIVERY_ERROR_REASONS,
  type DeliveryErrorCode,
  deliveryErrorCodeOf,
  describeDeliveryError,
  isDeliveryErrorCode,
} from './delivery-error-code'
export { ExpiredMessageError } from './expired-message-error'
export { MessageLockedError } from './message-locked-error'
export { openGate } from './open-gate'
export { OutcomeUnknownSendError } from './outcome-unknown-send-error'
export type {
  Admission,
  BatchAdmission,
  BatchDeliveryStore,
  CampaignRecipient,
  CampaignRenderer,
  ClaimedMessage,
  Clock,
  DeliveryLogger,
  DeliveryState,
  DeliveryStore,
  DkimSignature,
  FailureNote,
  FeedbackVerdict,
  HandOff,
  HeldClaim,
  HeldConnection,
  HoldResult,
  KeptContent,
  MailAddress,
  Mailer,
  MailSlot,
  MailTracker,
  MessageContentKind,
  OutgoingAttachment,
  OutgoingMail,
  ReceiverAdmission,
  ReceiverAsk,
  ReceiverBatchAdmission,
  ReceiverGate,
  ReceiverOutcome,
  ReceiverRoute,
  ReceiverVerdict,
  ReleasedClaim,
  RenderedMail,
  ReserveOptions,
  SenderSigner,
  SenderSigning,
  SendGate,
  SendJob,
  SentClaim,
  UnclaimedClaim,
} from './ports'
export { type RecordOutcome, recordAcceptedSend } from './record-accepted-send'
export { resolveSenderSigning, type SigningDomain } from './resolve-sender-signing'
export {
  BATCH_LOCK_SHARE,
  type BatchItem,
  type BatchOutcome,
  MARK_FLUSH_MS,
  type SendBatchDeps,
  type SendBatchJob,
  sendBatch,
} from './send-batch'
export { isOutcomeUnknown, isPermanentFailure, isSendFailure, type SendFailure } from './send-failure'
export {
  type SendAttempt,
  type SendDeps,
  type SendOutcome,
  type SendStep,
  type SkipReason,
  sendMessage,
} from './send-message'
export { SendNotRecordedError } from './send-not-recorded-error'
export { SigningFailedError } from './signing-failed-error'
export { UndeliverableMessageError } from './undeliverable-message-error'
export { withRetries } from './with-retries'
