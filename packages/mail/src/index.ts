export { messageIdFor } from './message-id'
export {
  closeLaneTransports,
  createLaneTransports,
  type LaneTransportOptions,
  type LaneTransports,
} from './transports'
