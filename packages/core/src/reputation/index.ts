export {
  checkReputation,
  type ReputationLogger,
  type ReputationStore,
  type StageChange,
  type TenantReputationCounts,
} from './check-reputation'
export {
  FEEDBACK_THRESHOLDS,
  FEEDBACK_WINDOW_HOURS,
  type FeedbackCounts,
  type FeedbackFlag,
  type FeedbackRates,
  feedbackSeverity,
  rateFeedback,
} from './feedback-rates'
export {
  assessReputation,
  DEFAULT_GUARDRAIL_THRESHOLDS,
  describeFinding,
  GUARDED_STAGES,
  type GuardedStage,
  type GuardrailThresholds,
  isWorse,
  nextReputationStage,
  REPUTATION_STAGES,
  REPUTATION_WINDOWS,
  type ReputationAssessment,
  type ReputationFinding,
  type ReputationSignal,
  type ReputationStage,
  type ReputationWindow,
  SLOW_WEIGHT_FACTOR,
  type StageThreshold,
  weightAtStage,
} from './guardrails'
export { reputationNotice } from './reputation-notice'
