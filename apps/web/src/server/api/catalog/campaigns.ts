import { campaignRequestSchema } from '@fairlane/core'
import { getCampaign } from '../v1/get-campaign'
import { idParam, json, locationHeader, responses } from '../v1/openapi/operation-helpers'
import { postCampaign } from '../v1/post-campaign'
import { postCampaignCancel } from '../v1/post-campaign-cancel'
import { campaignCancelledResponse, campaignResponse, campaignScheduledResponse } from '../v1/responses'
import { declareRoute } from './define'

const requestSchemas = { campaign: campaignRequestSchema.meta({ id: 'CampaignRequest' }) }

/** Campaigns: schedule one, read its status and counts, cancel it. */
export const campaignRoutes = {
  postCampaign: declareRoute({
    method: 'POST',
    path: '/api/v1/campaigns',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => postCampaign(request, deps.api),
    openapi: ({ now }) => {
      // The campaign examples are dated a year ahead, so an example request is never refused as past.
      const year = now.getUTCFullYear() + 1
      return {
        operationId: 'scheduleCampaign',
        tags: ['Campaigns'],
        summary: 'Schedule a campaign',
        description: [
          'To all subscribed contacts, or to `listId`. `sendAt` is an ISO instant with a zone, or a wall time in an',
          'IANA zone (`fold` picks the earlier or later of a repeated hour). `subject`, `html` and `text` are mustache',
          'templates over each contact’s `name`, `email` and attributes. The audience is resolved at send time.',
        ].join(' '),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: requestSchemas.campaign,
              examples: {
                localTime: {
                  summary: 'At 09:00 in Berlin',
                  value: {
                    name: 'Christmas news',
                    subject: 'Merry Christmas, {{name}}',
                    html: '<p>Hello {{name}}!</p>',
                    sendAt: { local: `${year}-12-24T09:00`, timeZone: 'Europe/Berlin' },
                  },
                },
                instant: {
                  summary: 'At an instant',
                  value: {
                    name: 'Christmas news (UTC)',
                    subject: 'Merry Christmas',
                    html: '<p>Hello!</p>',
                    text: 'Hello!',
                    sendAt: `${year}-12-24T08:00:00Z`,
                  },
                },
              },
            },
          },
        },
        responses: responses(
          { '201': json(campaignScheduledResponse, 'Scheduled', locationHeader('campaign')) },
          [400, 401, 404, 413, 415, 422, 429],
        ),
      }
    },
  }),
  getCampaign: declareRoute({
    method: 'GET',
    path: '/api/v1/campaigns/:id',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => getCampaign(request, id, deps.api),
    openapi: {
      operationId: 'getCampaign',
      tags: ['Campaigns'],
      summary: 'A campaign’s status and counts',
      requestParams: idParam('campaign'),
      responses: responses({ '200': json(campaignResponse, 'The campaign') }, [401, 404, 429]),
    },
  }),
  cancelCampaign: declareRoute({
    method: 'POST',
    path: '/api/v1/campaigns/:id/cancel',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => postCampaignCancel(request, id, deps.api),
    openapi: {
      operationId: 'cancelCampaign',
      tags: ['Campaigns'],
      summary: 'Cancel a campaign',
      description:
        'Holds back every message not yet handed to SMTP; what was sent stays sent. Cancelling again answers 200 and cancels nothing more; a campaign already sent answers 409.',
      requestParams: idParam('campaign'),
      responses: responses({ '200': json(campaignCancelledResponse, 'Cancelled') }, [401, 404, 409, 429]),
    },
  }),
}
