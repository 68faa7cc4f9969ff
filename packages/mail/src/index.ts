export { BODY_HANDOFF, installBodyHandoff } from './body-handoff'
export { DKIM_HEADER_FIELD_NAMES, installDkimSignatureCheck } from './dkim-signature-check'
export { messageIdFor } from './message-id'
export { nodemailerMessage } from './message-options'
export {
  classifySendError,
  OutcomeUnknownSendError,
  PermanentSendError,
  type SendErrorClassification,
  TransientSendError,
  toSendError,
} from './smtp-errors'
export {
  closeLaneTransports,
  createLaneTransports,
  type LaneTransportOptions,
  type LaneTransports,
} from './transports'
