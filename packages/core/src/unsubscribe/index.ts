export type { UnsubscribeSource, UnsubscribeStore, UnsubscribeTarget } from './ports'
export {
  PREVIEW_UNSUBSCRIBE_TOKEN,
  signUnsubscribeToken,
  type UnsubscribeClaims,
  type UnsubscribeKey,
  unsubscribeKey,
  verifyUnsubscribeToken,
} from './token'
export {
  describeUnsubscribe,
  maskEmail,
  type UnsubscribeDeps,
  type UnsubscribeOutcome,
  unsubscribeByToken,
} from './unsubscribe-by-token'
