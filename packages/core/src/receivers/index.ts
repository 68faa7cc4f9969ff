export {
  listReceivers,
  RECEIVER_SHARE_WINDOW_MINUTES,
  type ReceiverView,
  type SlowedTenantView,
} from './list-receivers'
export type * from './ports'
