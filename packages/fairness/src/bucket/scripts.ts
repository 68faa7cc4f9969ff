/**
 * The Lua behind `token-buckets.ts`, one atomic script per operation, mirroring `gcra.ts` (`decide`,
 * `reserveDeferralSlot`). Both read the Redis server clock (`TIME`, allowed in scripts since Redis 5
 * replicates effects), so the clocks of the workers calling them never matter. Times are stored as
 * milliseconds with three decimals, so nothing is lost to rounding at the microsecond clock.
 * Every key of one bucket shares the hash tag `{<bucket>}`, so the scripts work on Redis Cluster.
 */

/** Both scripts' start: the server's clock (ms, µs), the plan's interval and burst, the idle margin. */
const CLOCK_AND_PLAN = `
local time = redis.call('TIME')
local nowUs = tonumber(time[1]) * 1000000 + tonumber(time[2])
local now = nowUs / 1000
local interval = 1000 / tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local margin = tonumber(ARGV[5])
`

/**
 * Takes one token from a bucket; without one, reserves the caller a deferral slot and counts the
 * refusal. A refusal spends nothing: `tat` only moves when a token is taken.
 *
 * KEYS[1]  tat          theoretical arrival time, ms since the epoch; absent = bucket full
 * KEYS[2]  last slot    the latest slot handed to a deferred job, ms since the epoch
 * KEYS[3]  deferrals    prefix of the refusal counters, `<prefix><floor(now / period)>`; not a key
 *                      itself, but every counter carries the bucket's hash tag, so it shares the slot
 * KEYS[4]  refusals     running total of refusals, read by whoever feeds the bucket (the pacer)
 * ARGV[1]  ratePerSec
 * ARGV[2]  burst
 * ARGV[3]  deferral counter period, ms
 * ARGV[4]  deferral counter TTL, ms
 * ARGV[5]  idle margin, ms: how long a key outlives the moment it stops mattering
 * ARGV[6]  refusal total TTL, ms
 *
 * Returns {1, nowUs} when taken, {0, nowUs, retryAfterUs, position} when refused.
 */
export const TAKE_SCRIPT = `${CLOCK_AND_PLAN}
local from = tonumber(redis.call('GET', KEYS[1])) or now
if from < now then from = now end
local wait = from - now - (burst - 1) * interval

if wait <= 0 then
  local tat = from + interval
  -- Past tat the bucket is full again and the key says nothing: let it expire.
  redis.call('SET', KEYS[1], string.format('%.3f', tat), 'PX', math.ceil(tat - now) + margin)
  return {1, nowUs}
end

local nextToken = now + wait
local slot = nextToken
local lastSlot = tonumber(redis.call('GET', KEYS[2]))
if lastSlot and lastSlot + interval > slot then slot = lastSlot + interval end
local position = math.floor((slot - nextToken) / interval + 0.5) + 1
-- Gone once the last deferred job has woken (slot + jitter below one interval) and a margin passed.
redis.call('SET', KEYS[2], string.format('%.3f', slot), 'PX', math.ceil(slot - now + 2 * interval))

local deferrals = KEYS[3] .. string.format('%d', math.floor(now / tonumber(ARGV[3])))
redis.call('INCR', deferrals)
redis.call('PEXPIRE', deferrals, ARGV[4])
redis.call('INCR', KEYS[4])
redis.call('PEXPIRE', KEYS[4], ARGV[6])
return {0, nowUs, math.ceil(wait * 1000), position}
`

/**
 * Takes up to ARGV[7] tokens at once (a batch): as many as the bucket holds now, at most that many;
 * `tat` moves one interval per token taken. When it grants fewer than asked, the rest is a refusal as
 * in TAKE_SCRIPT: a deferral slot reserved for the batch's next try, and the refused count added to
 * the refusal counters (the pacer counted on those messages). Same keys and ARGV[1..6] as TAKE_SCRIPT.
 *
 * Returns {granted, nowUs} when all were granted, {granted, nowUs, retryAfterUs, position} otherwise.
 */
export const TAKE_UP_TO_SCRIPT = `${CLOCK_AND_PLAN}local wanted = tonumber(ARGV[7])

local from = tonumber(redis.call('GET', KEYS[1])) or now
if from < now then from = now end
local room = (burst - 1) * interval - (from - now)
local granted = 0
if room >= 0 then granted = math.min(wanted, math.floor(room / interval + 1e-9) + 1) end
if granted > 0 then
  from = from + granted * interval
  redis.call('SET', KEYS[1], string.format('%.3f', from), 'PX', math.ceil(from - now) + margin)
end
if granted == wanted then return {granted, nowUs} end

local wait = from - now - (burst - 1) * interval
local nextToken = now + wait
local slot = nextToken
local lastSlot = tonumber(redis.call('GET', KEYS[2]))
if lastSlot and lastSlot + interval > slot then slot = lastSlot + interval end
local position = math.floor((slot - nextToken) / interval + 0.5) + 1
redis.call('SET', KEYS[2], string.format('%.3f', slot), 'PX', math.ceil(slot - now + 2 * interval))

local refused = wanted - granted
local deferrals = KEYS[3] .. string.format('%d', math.floor(now / tonumber(ARGV[3])))
redis.call('INCRBY', deferrals, refused)
redis.call('PEXPIRE', deferrals, ARGV[4])
redis.call('INCRBY', KEYS[4], refused)
redis.call('PEXPIRE', KEYS[4], ARGV[6])
return {granted, nowUs, math.ceil(wait * 1000), position}
`
