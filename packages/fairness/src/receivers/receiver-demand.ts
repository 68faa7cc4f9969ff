import type { RedisClient } from '../redis-reads'

/**
 * Who wants a receiving provider's budget at one egress address, and how much (MX mode). Every
 * worker's receiver gate notes each ask (a message about to go there) and each tenant it had to turn
 * away (mail waiting); the bulk pacer notes the tenants it holds a backlog for. The answer is every
 * tenant active there lately with its weight and demand, from which each one's weighted max-min share
 * of the provider's rate follows (`demandShares`, `@fairlane/delivery/shaping/demand-shares`): a tenant asking for less than its share gets
 * what it asks, and what it leaves goes to those with mail waiting. One hash per (egress, provider) in
 * Redis, shared by every worker, one script call per note.
 */

export type DemandKind =
  /** One message asked for the budget now. */
  | 'ask'
  /** The tenant has mail for this provider that is waiting (turned away, or in the pacer's backlog). */
  | 'waiting'

export interface DemandNote {
  tenantId: string
  weight: number
  kind: DemandKind
}

export interface DemandEntry {
  tenantId: string
  weight: number
  /**
   * Messages a minute the tenant asked lately (a moving average over `tauMs`), or Infinity while it
   * has mail waiting: it would take any share it is given.
   */
  demandPerMinute: number
}

export interface ReceiverDemand {
  /** Records the notes and answers every tenant active at (egress, provider) within the window. */
  note(input: { egress: string; provider: string; notes: readonly DemandNote[] }): Promise<DemandEntry[]>
}

export interface ReceiverDemandOptions {
  /** Used as given (include the separator, e.g. `fl:`). */
  prefix: string
  /** How quickly the asking rate forgets: the moving average's time constant. Default 10 s. */
  tauMs?: number
  /** A tenant neither asking nor waiting this long no longer counts. Default 10 s. */
  windowMs?: number
  clock?: { now(): number }
}

/**
 * One field per tenant, `rate|updatedAtMs|waitingUntilMs|weight`: the rate decays by
 * exp(-Δt / tau) and each ask adds 60,000 / tau (so steady asks at λ a minute settle at λ). Entries
 * neither updated nor waiting within the window are dropped as they are read. Numbers go back as
 * strings: Lua's numbers would be cut to integers in the reply.
 */
const NOTE_SCRIPT = `
local now = tonumber(ARGV[1])
local tau = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local function decode(raw)
  local rate, updated, waiting, weight = string.match(raw, '^([^|]+)|([^|]+)|([^|]+)|([^|]+)$')
  return tonumber(rate), tonumber(updated), tonumber(waiting), tonumber(weight)
end
for i = 4, #ARGV, 3 do
  local tenant, weight, kind = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local rate, updated, waiting = 0, now, 0
  local raw = redis.call('HGET', KEYS[1], tenant)
  if raw then
    local r, u, w = decode(raw)
    rate = r * math.exp(-math.max(0, now - u) / tau)
    waiting = w
  end
  if kind == 'ask' then rate = rate + 60000 / tau end
  if kind == 'waiting' then waiting = now + window end
  redis.call('HSET', KEYS[1], tenant, string.format('%.6f|%d|%d|%s', rate, now, waiting, weight))
end
local out = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local rate, updated, waiting, weight = decode(all[i + 1])
  if updated < now - window and waiting < now then
    redis.call('HDEL', KEYS[1], all[i])
  else
    local decayed = rate * math.exp(-math.max(0, now - updated) / tau)
    table.insert(out, all[i])
    table.insert(out, tostring(weight))
    table.insert(out, string.format('%.6f', decayed))
    table.insert(out, waiting >= now and '1' or '0')
  end
end
redis.call('PEXPIRE', KEYS[1], window * 3)
return out
`

const NOTE_COMMAND = 'fairlaneReceiverDemandNote'

interface DemandCommands {
  [NOTE_COMMAND](key: string, ...args: (string | number)[]): Promise<string[]>
}

/** Keys: `<prefix>receivers:demand:{<egress>|<provider>}` (one hash; '' egress is written `any`). */
export function createReceiverDemand(redis: RedisClient, options: ReceiverDemandOptions): ReceiverDemand {
  const tauMs = options.tauMs ?? 10_000
  const windowMs = options.windowMs ?? 10_000
  if (!(tauMs > 0)) throw new RangeError(`tauMs must be above 0, got ${tauMs}`)
  if (!(windowMs > 0)) throw new RangeError(`windowMs must be above 0, got ${windowMs}`)
  const clock = options.clock ?? Date
  redis.defineCommand(NOTE_COMMAND, { numberOfKeys: 1, lua: NOTE_SCRIPT })
  const commands = redis as RedisClient & DemandCommands

  return {
    async note({ egress, provider, notes }) {
      const key = `${options.prefix}receivers:demand:{${checked('egress', egress) || 'any'}|${checked('provider', provider)}}`
      const args: (string | number)[] = [Math.round(clock.now()), tauMs, windowMs]
      for (const note of notes) {
        if (!(note.weight > 0 && Number.isFinite(note.weight))) {
          throw new RangeError(`weight must be a number above 0, got ${note.weight}`)
        }
        args.push(checked('tenantId', note.tenantId), note.weight, note.kind)
      }
      const reply = await commands[NOTE_COMMAND](key, ...args)
      const entries: DemandEntry[] = []
      for (let index = 0; index + 3 < reply.length; index += 4) {
        entries.push({
          tenantId: reply[index] as string,
          weight: Number(reply[index + 1]),
          demandPerMinute: reply[index + 3] === '1' ? Number.POSITIVE_INFINITY : Number(reply[index + 2]),
        })
      }
      return entries
    },
  }
}

/** `|` splits the fields, braces would move the cluster hash tag. */
function checked(name: string, value: string): string {
  if (/[{}|]/.test(value) || (name !== 'egress' && value.length === 0)) {
    throw new RangeError(
      `${name} must be ${name !== 'egress' ? 'non-empty and ' : ''}free of {, } and |, got "${value}"`,
    )
  }
  return value
}
