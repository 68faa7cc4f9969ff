export { messageIdFor } from './message-id'
export {
  classifySendError,
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
