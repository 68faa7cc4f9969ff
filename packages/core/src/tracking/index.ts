export {
  DEFAULT_SCANNER_WINDOW_MS,
  recordTrackingHit,
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
