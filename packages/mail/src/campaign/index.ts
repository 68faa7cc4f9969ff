export {
  type CampaignContent,
  type RenderCampaignInput,
  type RenderedCampaignMessage,
  renderCampaignMessage,
} from './render-campaign-message'
export { type CampaignContact, campaignView, findUnknownVariables, templateSyntaxError } from './variables'
