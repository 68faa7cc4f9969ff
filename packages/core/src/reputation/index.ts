export {
  FEEDBACK_THRESHOLDS,
  FEEDBACK_WINDOW_HOURS,
  type FeedbackCounts,
  type FeedbackFlag,
  type FeedbackRates,
  feedbackSeverity,
  rateFeedback,
} from './feedback-rates'
