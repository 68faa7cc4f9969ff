export type { UnsubscribeStore, UnsubscribeTarget } from './ports'
export {
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
