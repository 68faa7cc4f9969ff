export {
  type CampaignDraft,
  type CampaignSchedule,
  campaignRequestSchema,
  MAX_CAMPAIGN_HTML_BYTES,
  parseCampaignRequest,
} from './campaign-request'
export { cancelCampaign } from './cancel-campaign'
export {
  type AudienceCounts,
  type CampaignFields,
  type CampaignStore,
  EDITABLE_CAMPAIGN_STATUSES,
  isEditableCampaign,
  type TemplateChecker,
} from './ports'
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
  type ScheduleCampaignDeps,
  type ScheduleCampaignInput,
  type ScheduledCampaign,
  scheduleCampaign,
} from './schedule-campaign'
