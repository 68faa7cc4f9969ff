/**
 * `REDIS_URL` as one or more comma-separated node URLs. A single Redis takes exactly one; a Redis
 * Cluster (`REDIS_CLUSTER=true`) takes any number of seeds, from which the client learns the rest of
 * the cluster (`CLUSTER SLOTS`), so one reachable seed is enough to connect.
 */
export interface RedisSeed {
  url: string
  host: string
  port: number
  username?: string
  password?: string
  tls: boolean
}

/** Splits and parses the seed list; throws a `RangeError` naming the first entry that is not a redis URL. */
export function parseRedisSeeds(value: string): RedisSeed[] {
  const entries = value.split(',').map((entry) => entry.trim())
  if (entries.some((entry) => entry === '')) {
    throw new RangeError(`expected comma-separated redis:// URLs without empty entries; got "${value}"`)
  }
  return entries.map(parseSeed)
}

function parseSeed(entry: string): RedisSeed {
  let url: URL
  try {
    url = new URL(entry)
  } catch {
    throw new RangeError(`"${entry}" is not a URL (expected redis://host:port or rediss://host:port)`)
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new RangeError(`"${entry}" is not a redis:// or rediss:// URL`)
  }
  if (url.hostname === '') throw new RangeError(`"${entry}" names no host`)
  return {
    url: entry,
    // `new URL` keeps the brackets of an IPv6 literal; sockets want the bare address.
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? 6379 : Number(url.port),
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    tls: url.protocol === 'rediss:',
  }
}
