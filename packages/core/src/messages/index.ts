export { cancelMessage } from './cancel-message'
export {
  DEFAULT_MESSAGES_PAGE,
  encodeMessageCursor,
  listMessagePage,
  listMessages,
  MAX_MESSAGES_PAGE,
  type MessagePage,
  messageCursorField,
  messagesQuerySchema,
  parseMessagesQuery,
} from './list-messages'
export type {
  CancelOutcome,
  MessageCancelStore,
  MessageListEntry,
  MessageListQuery,
  MessageListStore,
  ReleasedMessage,
  ScheduledReleaseStore,
} from './ports'
export { type ReleaseScheduledOptions, releaseScheduled } from './release-scheduled'
