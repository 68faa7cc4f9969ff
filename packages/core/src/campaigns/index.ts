export {
  type CampaignDraft,
  type CampaignSchedule,
  campaignRequestSchema,
  MAX_CAMPAIGN_HTML_BYTES,
  MAX_CAMPAIGN_SUBJECT_CHARS,
  MAX_CAMPAIGN_TEXT_BYTES,
  oversizedContent,
  parseCampaignRequest,
} from './campaign-request'
export { type CancelCampaignDeps, type CancelledCampaign, cancelCampaign } from './cancel-campaign'
export {
  type CompletionCursor,
  createCompletionCursor,
  DISPATCH_TUNING,
  type DispatchDueCampaignsDeps,
  type DispatchPassOutcome,
  type DispatchTuning,
  dispatchDueCampaigns,
} from './dispatch-due-campaigns'
export { type DuplicateCampaignDeps, duplicateCampaign } from './duplicate-campaign'
export {
  type AudienceCounts,
  CANCELLABLE_CAMPAIGN_STATUSES,
  type CampaignCancellation,
  type CampaignDueSoon,
  type CampaignFields,
  type CampaignStore,
  type CompletionSlice,
  type DispatchBatchResult,
  type DispatchLogger,
  type DispatchStore,
  type DispatchTarget,
  EDITABLE_CAMPAIGN_STATUSES,
  isCancellableCampaign,
  isEditableCampaign,
  type TemplateChecker,
} from './ports'
export { campaignProgress, type TerminalCounts } from './progress'
export {
  type Fold,
  formatOffset,
  isValidTimeZone,
  type LocalSendTime,
  localTimeOf,
  resolveSendAt,
  type SendAtResolution,
} from './schedule'
export {
  type CampaignWarning,
  type ScheduleCampaignDeps,
  type ScheduleCampaignInput,
  type ScheduledCampaign,
  scheduleCampaign,
} from './schedule-campaign'
