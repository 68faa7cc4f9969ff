import { MAX_USAGE_DAYS } from '@fairlane/core'
import { z } from 'zod'
import type { RouteKey } from './document'
import { json, type Operation, responses } from './operation-helpers'

/** `GET /api/v1/usage` in the API document (an extension of the contract: plans and quotas). */

const count = z.number().int().min(0)
const counts = z.object({
  accepted: count,
  sent: count,
  bounced: count,
  complained: count,
  suppressed: count,
})

export const usageResponse = z
  .object({
    days: z.array(
      counts.extend({
        date: z.string().meta({ description: 'The UTC day, YYYY-MM-DD', example: '2026-12-06' }),
        lanes: z.record(z.string(), counts).meta({
          description: 'The same counts per lane (`critical`, `default`, `bulk`) that had any',
        }),
      }),
    ),
    quota: z
      .object({
        daily: count.optional(),
        monthly: count.optional(),
        usedToday: count,
        usedThisMonth: count,
      })
      .optional()
      .meta({ description: 'Only when the tenant has a daily or monthly quota' }),
  })
  .meta({ id: 'Usage' })

export function usageOperations(): Record<RouteKey, Operation> {
  return {
    'GET /api/v1/usage': {
      operationId: 'getUsage',
      tags: ['Usage'],
      summary: 'Accepted mail and its outcomes per day, and the quotas',
      description: [
        'Per UTC day from `from` to `to` (inclusive; default the last 30 days; at most',
        `${MAX_USAGE_DAYS} days): accepted (counted at accept, every way in), then what became of the mail`,
        'accepted that day so far: sent, bounced, complained, suppressed; in total and by lane. Every day',
        'of the range is present. With a quota, `quota` says it and today’s and this month’s use (UTC).',
      ].join(' '),
      requestParams: {
        query: z.object({
          from: z
            .string()
            .optional()
            .meta({ description: 'First UTC day, YYYY-MM-DD', example: '2026-11-07' }),
          to: z.string().optional().meta({ description: 'Last UTC day, YYYY-MM-DD', example: '2026-12-06' }),
        }),
      },
      responses: responses({ '200': json(usageResponse, 'The days and the quota') }, [400, 401, 429]),
    },
  }
}
