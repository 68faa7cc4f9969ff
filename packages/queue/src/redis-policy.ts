/**
 * The queue Redis must never evict: an evicted job key is a lost email. `allkeys-*` and `volatile-*`
 * policies may drop BullMQ's keys under memory pressure, so the worker refuses to start on them.
 */
export interface RedisPersistence {
  maxmemoryPolicy: string
  aofEnabled: boolean
}

export type PolicyVerdict = { kind: 'ok'; warnings: string[] } | { kind: 'refused'; reason: string }

/** Reads `maxmemory_policy` and `aof_enabled` out of `INFO memory` + `INFO persistence` text. */
export function parseRedisInfo(info: string): RedisPersistence {
  const fields = new Map<string, string>()
  for (const line of info.split(/\r?\n/)) {
    const at = line.indexOf(':')
    if (at > 0) fields.set(line.slice(0, at), line.slice(at + 1).trim())
  }
  return {
    maxmemoryPolicy: fields.get('maxmemory_policy') ?? 'unknown',
    aofEnabled: fields.get('aof_enabled') === '1',
  }
}

export function judgeRedisPolicy(persistence: RedisPersistence, environment: string): PolicyVerdict {
  const policy = persistence.maxmemoryPolicy
  if (policy.startsWith('allkeys-') || policy.startsWith('volatile-')) {
    return {
      kind: 'refused',
      reason: `Redis maxmemory-policy is ${policy}; the queue Redis must use noeviction (an evicted job is a lost email)`,
    }
  }
  const warnings: string[] = []
  if (policy !== 'noeviction') warnings.push(`Redis maxmemory-policy is ${policy}; expected noeviction`)
  if (!persistence.aofEnabled && environment !== 'development') {
    warnings.push('Redis AOF is off: a Redis restart loses in-flight jobs until the sweeper republishes them')
  }
  return { kind: 'ok', warnings }
}
