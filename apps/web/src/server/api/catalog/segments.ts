import { MAX_SEGMENT_NAME_LENGTH, segmentFilterSchema } from '@fairlane/core'
import { z } from 'zod'
import { idParam, json, locationHeader, responses } from '../v1/openapi/operation-helpers'
import { segmentResponse, segmentsResponse, segmentWithAudienceResponse } from '../v1/responses'
import { getSegmentById, getSegments, patchSegment, postSegment, removeSegment } from '../v1/segments'
import { declareRoute } from './define'

const requestSchemas = {
  segment: z
    .strictObject({ name: z.string().min(1).max(MAX_SEGMENT_NAME_LENGTH), filter: segmentFilterSchema })
    .meta({ id: 'SegmentRequest' }),
  segmentRename: z
    .strictObject({ name: z.string().min(1).max(MAX_SEGMENT_NAME_LENGTH) })
    .meta({ id: 'SegmentRename' }),
}

/** Saved contact filters, usable as a campaign audience. */
export const segmentRoutes = {
  listSegments: declareRoute({
    method: 'GET',
    path: '/api/v1/segments',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => getSegments(request, deps.api),
    openapi: {
      operationId: 'listSegments',
      tags: ['Segments'],
      summary: 'List your segments',
      responses: responses({ '200': json(segmentsResponse, 'Every live segment') }, [401, 429]),
    },
  }),
  createSegment: declareRoute({
    method: 'POST',
    path: '/api/v1/segments',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => postSegment(request, deps.api),
    openapi: {
      operationId: 'createSegment',
      tags: ['Segments'],
      summary: 'Save a segment',
      description:
        'A name and a filter: conditions on attributes (`equals`, `not-equals`, `in`, `exists`; values compare as text, case matters) and the creation day (`created-before`, `created-after`, UTC), all of which must hold.',
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: requestSchemas.segment,
            examples: {
              berlin: {
                summary: 'Pro and team customers in Berlin',
                value: {
                  name: 'Berlin customers',
                  filter: {
                    conditions: [
                      { op: 'equals', attribute: 'city', value: 'Berlin' },
                      { op: 'in', attribute: 'plan', values: ['pro', 'team'] },
                    ],
                  },
                },
              },
            },
          },
        },
      },
      responses: responses(
        { '201': json(segmentResponse, 'Saved', locationHeader('segment')) },
        [400, 401, 409, 413, 415, 429],
      ),
    },
  }),
  getSegment: declareRoute({
    method: 'GET',
    path: '/api/v1/segments/:id',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => getSegmentById(request, id, deps.api),
    openapi: {
      operationId: 'getSegment',
      tags: ['Segments'],
      summary: 'A segment and its audience now',
      requestParams: idParam('segment'),
      responses: responses({ '200': json(segmentWithAudienceResponse, 'The segment') }, [401, 404, 429]),
    },
  }),
  renameSegment: declareRoute({
    method: 'PATCH',
    path: '/api/v1/segments/:id',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => patchSegment(request, id, deps.api),
    openapi: {
      operationId: 'renameSegment',
      tags: ['Segments'],
      summary: 'Rename a segment',
      description: 'Only the name changes; a filter never does (save a new segment).',
      requestParams: idParam('segment'),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: requestSchemas.segmentRename,
            examples: { rename: { summary: 'A new name', value: { name: 'Berlin (paying)' } } },
          },
        },
      },
      responses: responses({ '200': json(segmentResponse, 'The segment') }, [400, 401, 404, 409, 415, 429]),
    },
  }),
  deleteSegment: declareRoute({
    method: 'DELETE',
    path: '/api/v1/segments/:id',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { id }, deps) => removeSegment(request, id, deps.api),
    openapi: {
      operationId: 'deleteSegment',
      tags: ['Segments'],
      summary: 'Delete a segment',
      description: 'Refused (409, naming them) while a scheduled or sending campaign uses it.',
      requestParams: idParam('segment'),
      responses: responses({ '204': { description: 'Deleted' } }, [401, 404, 409, 429]),
    },
  }),
}
