export {
  DEFAULT_REPEAT_WINDOW_MS,
  DEFAULT_SCANNER_WINDOW_MS,
  recordTrackingHit,
  repeatWindowStart,
  type TrackingDeps,
  type TrackingHit,
  type TrackingOutcome,
  type TrackingStore,
} from './record-hit'
export {
  signTrackingToken,
  type TrackingClaims,
  type TrackingKey,
  trackingKey,
  verifyTrackingToken,
} from './token'
