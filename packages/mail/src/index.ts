export { BODY_HANDOFF, installBodyHandoff } from './body-handoff'
export { type ComposedMessage, type ComposeInput, composeMessage } from './compose/compose-message'
export { type DkimKey, type DkimSignOptions, dkimBodyHash, dkimSign } from './dkim'
export { DKIM_HEADER_FIELD_NAMES, DKIM_SIGNED, installDkimSignatureCheck } from './dkim-signature-check'
export { messageIdFor } from './message-id'
export { type OutgoingMessage, outgoingMessage } from './message-options'
export { signForSending } from './signed-message'
export {
  classifySendError,
  OutcomeUnknownSendError,
  PermanentSendError,
  type SendErrorClassification,
  TransientSendError,
  toSendError,
} from './smtp-errors'
export {
  listSubmittedAttachments,
  MAX_LISTED_ATTACHMENTS,
  type SubmittedAttachment,
} from './submitted-attachments'
export { rewriteSubmittedMessage } from './submitted-mime'
export {
  closeLaneTransports,
  createLaneTransports,
  type LaneTransportOptions,
  type LaneTransports,
} from './transports'
