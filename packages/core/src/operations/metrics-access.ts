import { createHash, timingSafeEqual } from 'node:crypto'

export interface MetricsRefusal {
  status: 401 | 403
  error: { code: 'forbidden' | 'unauthorized'; message: string }
}

/**
 * Whether a scrape of a process's `/metrics` is refused: without METRICS_TOKEN it is open unless the
 * process requires one (production); with one, only `Authorization: Bearer <METRICS_TOKEN>` passes.
 * `process` names whose metrics they are in the refusal (`worker`, `inbound`).
 */
export function metricsRefusal(input: {
  authorization: string | undefined
  token: string | undefined
  requireToken: boolean
  process: string
}): MetricsRefusal | undefined {
  if (input.token === undefined) {
    if (!input.requireToken) return undefined
    return {
      status: 403,
      error: {
        code: 'forbidden',
        message: `set METRICS_TOKEN to scrape the ${input.process} metrics in production`,
      },
    }
  }
  const presented = /^Bearer (\S+)$/i.exec(input.authorization ?? '')?.[1]
  if (presented !== undefined && sameSecret(presented, input.token)) return undefined
  return {
    status: 401,
    error: {
      code: 'unauthorized',
      message: `the ${input.process} metrics need Authorization: Bearer <METRICS_TOKEN>`,
    },
  }
}

/** Compared as digests: equal length for timingSafeEqual, no early exit on the first differing byte. */
function sameSecret(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()
  return timingSafeEqual(digest(presented), digest(expected))
}
