/**
 * The Lua behind `lane-admission.ts`: one atomic script per operation. Every key of one tenant's lane
 * shares the hash tag `{<lane>:<tenantId>}`, so the scripts work on Redis Cluster. Times are the
 * Redis server's clock (`TIME`) in milliseconds with three decimals, as in the bucket scripts.
 */

/**
 * The relay's admission of a tenant's rows into a transactional lane, in the tenant's order: each row
 * gets a lane slot and a reserved turn from the tenant's plan, until the slots are full, the next turn
 * lies beyond the horizon, or (fresh rows only) older rows of the tenant are still parked. Admitted
 * rows hold a slot (member = lane job id, score = expiry) and are published with `delay` = their turn;
 * the rest stay in PostgreSQL. Fresh rows that were not admitted are given estimated turns after the
 * tenant's last parked row (`tail`), so parked rows come due one interval apart, in order, and each is
 * looked at again about once, not on every pass.
 *
 * The reservation (`tat`) is the relay's own GCRA state beside the worker's bucket: turns are handed out
 * at the plan's rate, so the lane worker's take at the hand-off (still the guarantee) finds its token.
 *
 * KEYS[1]  slots     sorted set: lane job id → when its slot expires (a killed worker leaks nothing)
 * KEYS[2]  tat       the reservations' theoretical arrival time, ms; absent = nothing reserved ahead
 * KEYS[3]  tail      the estimated turn of the tenant's last parked row, ms; absent = none ahead
 * KEYS[4]  bucket    the lane worker's bucket `tat` for the tenant (same hash tag): turns never run
 *                    ahead of it, so a worker that took its tokens late is not handed jobs it must defer
 * ARGV[1]  maxSlots  lane jobs the tenant may have waiting, delayed or running at once
 * ARGV[2]  slotTtlMs how long a slot outlives its turn unless its job holds it again
 * ARGV[3]  ratePerSec
 * ARGV[4]  burst
 * ARGV[5]  horizonMs only turns within this of now are admitted
 * ARGV[6]  parkedCount: the first this many ids are parked rows whose turn came (admitted first)
 * ARGV[7]  admitFresh 1, or 0 when older rows of the tenant were not in this batch
 * ARGV[8]  idle margin, ms: how long a key outlives the moment it stops mattering
 * ARGV[9…] the rows' lane job ids, parked ones first, each part in the tenant's order
 *
 * Returns {nowUs, admitted, reason, retryInUs, parkFromUs, intervalUs, delayUs…}: `reason` 0 all
 * admitted, 1 slots full, 2 next turn beyond the horizon (`retryInUs`: until it is within), 3 older rows
 * parked ahead; `parkFromUs` the turn of the first fresh row left over (0 if none).
 */
export const ADMIT_SCRIPT = `
local time = redis.call('TIME')
local nowUs = tonumber(time[1]) * 1000000 + tonumber(time[2])
local now = nowUs / 1000
local maxSlots = tonumber(ARGV[1])
local slotTtl = tonumber(ARGV[2])
local interval = 1000 / tonumber(ARGV[3])
local burst = tonumber(ARGV[4])
local horizon = tonumber(ARGV[5])
local parkedCount = tonumber(ARGV[6])
local admitFresh = tonumber(ARGV[7])
local margin = tonumber(ARGV[8])
local n = #ARGV - 8

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local free = maxSlots - redis.call('ZCARD', KEYS[1])
local from = tonumber(redis.call('GET', KEYS[2])) or now
local bucketTat = tonumber(redis.call('GET', KEYS[4]))
if bucketTat and bucketTat > from then from = bucketTat end
if from < now then from = now end
local tail = tonumber(redis.call('GET', KEYS[3]))
local behind = tail ~= nil and tail > now

local delays = {}
local reason = 0
local retryIn = 0
local i = 1
while i <= n do
  if i > parkedCount and (admitFresh == 0 or behind) then reason = 3; break end
  if #delays >= free then reason = 1; break end
  local wait = from - now - (burst - 1) * interval
  if wait > horizon then reason = 2; retryIn = wait - horizon; break end
  if wait < 0 then wait = 0 end
  redis.call('ZADD', KEYS[1], string.format('%.3f', now + wait + slotTtl), ARGV[8 + i])
  from = from + interval
  delays[#delays + 1] = math.ceil(wait * 1000)
  i = i + 1
end
if #delays > 0 then
  redis.call('SET', KEYS[2], string.format('%.3f', from), 'PX', math.ceil(from - now) + margin)
  redis.call('PEXPIRE', KEYS[1], math.ceil(horizon + slotTtl) + margin)
end

local admitted = #delays
local freshLeft = n - math.max(admitted, parkedCount)
local parkFrom = 0
if freshLeft > 0 then
  local parkedLeft = math.max(0, parkedCount - admitted)
  parkFrom = from - (burst - 1) * interval + parkedLeft * interval
  if tail ~= nil and tail + interval > parkFrom then parkFrom = tail + interval end
  if parkFrom < now then parkFrom = now end
  local last = parkFrom + (freshLeft - 1) * interval
  redis.call('SET', KEYS[3], string.format('%.3f', last), 'PX', math.ceil(last - now) + margin)
end

local reply = {nowUs, admitted, reason, math.ceil(retryIn * 1000), math.floor(parkFrom * 1000), math.floor(interval * 1000)}
for _, delay in ipairs(delays) do reply[#reply + 1] = delay end
return reply
`

/**
 * A lane job holds its slot again (the lane worker, at the hand-off): the same member, so a job that
 * was deferred and came back is not counted twice, and its expiry moves on so a long wait in the lane
 * does not let the relay publish more of the tenant behind it.
 *
 * KEYS[1]  slots
 * ARGV[1]  lane job id
 * ARGV[2]  slotTtlMs
 * ARGV[3]  idle margin, ms
 */
export const HOLD_SCRIPT = `
local time = redis.call('TIME')
local now = (tonumber(time[1]) * 1000000 + tonumber(time[2])) / 1000
redis.call('ZADD', KEYS[1], string.format('%.3f', now + tonumber(ARGV[2])), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]))
return 1
`

/**
 * A lane job gives its slot back (completed, failed, deferred: it no longer waits in the lane), or a
 * batch job the slots of its messages, and expired slots are dropped on the way.
 *
 * KEYS[1]  slots
 * ARGV[1…] the slots' lane job ids (one for a single job)
 *
 * Returns {removed (how many of them were held), slotsLeft}.
 */
export const RELEASE_SCRIPT = `
local time = redis.call('TIME')
local now = (tonumber(time[1]) * 1000000 + tonumber(time[2])) / 1000
local removed = redis.call('ZREM', KEYS[1], unpack(ARGV))
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return {removed, redis.call('ZCARD', KEYS[1])}
`
