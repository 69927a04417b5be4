--[[
permit_pool.lua: a cap on calls in flight, shared by the fleet. Permits are leased (a holder that dies costs its lease,
not its permit), each held under its caller's own id (a release after the lease ended removes nothing another call
holds: the id is a fencing token), and callers without one wait in a line ordered by class, then arrival.
Its Java counterpart for one process is LocalPermitPool (same rules).

Run alone (RedisPermitPool): KEYS and ARGV below, from 1. Run with the token bucket inside (PERMIT_AND_BUCKET: the
token bucket's script as a function where this file says --@BUCKET@): KEYS[1] and ARGV[1..6] are the bucket's, and
this script's KEYS and ARGV follow them (KO = 1, AO = 6).

KEYS[KO+1] the permits: a sorted set, member = holder id, score = when its lease ends (Redis ms)
KEYS[KO+2] the line: a sorted set, member = waiter id, score = class x 1e12 + ticket
KEYS[KO+3] the waiters' leases: a sorted set, member = waiter id, score = when it loses its place (Redis ms)
KEYS[KO+4] the ticket counter
ARGV[AO+1] op: 'take' | 'release' | 'leave'
ARGV[AO+2] the pool's capacity (whole, >= 1)
ARGV[AO+3] take: the lease (ms); release: the permit's id; leave: the waiter's id (its place, and a permit held
           under its id that it never learnt of, go)
ARGV[AO+4] take: the waiter's id (also its permit's)
ARGV[AO+5] take: its class's rank (0 INTERACTIVE, 1 BATCH)
ARGV[AO+6] take: how long it keeps its place without asking again (ms)
ARGV[AO+7] take: '1' to book the bucket's slot in the same decision (PERMIT_AND_BUCKET only), else '0'

Every call first reclaims what is over: leases that ended (their holders died: counted in the reply) and places whose
waiters stopped asking; a lease that would end more than twice the caller's lease from now is not believed and ends
too. When permits are free, the ids of the waiters whose turn it is are published on KEYS[KO+1] .. ':turn'.

Replies, space-separated:
  take, a permit:       'P <inUse> <expired> <leaseEndMs>' (with the bucket: ' |' and the bucket's reply)
  take, its turn but the bucket refused: 'N <inUse> <expired> |<the bucket's reply>' (no permit, the place left)
  take, not its turn:   'Q <ahead> <inUse> <expired> <ms until the first lease ends, or -1>'
  release: '1' when the permit was held, '0' when its lease had ended (it freed nothing); leave: '1'
]]

local KO, AO = 0, 0
--@BUCKET@

local permits, line, leases, counter = KEYS[KO + 1], KEYS[KO + 2], KEYS[KO + 3], KEYS[KO + 4]
local op = ARGV[AO + 1]
local capacity = tonumber(ARGV[AO + 2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local function reclaim(lease)
  local expired = redis.call('ZREMRANGEBYSCORE', permits, '-inf', now)
  if lease ~= nil then
    expired = expired + redis.call('ZREMRANGEBYSCORE', permits, '(' .. string.format('%d', now + 2 * lease), '+inf')
  end
  local gone = redis.call('ZRANGEBYSCORE', leases, '-inf', now)
  if #gone > 0 then
    redis.call('ZREM', line, unpack(gone))
    redis.call('ZREM', leases, unpack(gone))
  end
  return expired
end

local function heads()
  local free = capacity - redis.call('ZCARD', permits)
  if free > 0 then
    local ids = redis.call('ZRANGE', line, 0, free - 1)
    if #ids > 0 then
      redis.call('PUBLISH', permits .. ':turn', table.concat(ids, ','))
    end
  end
end

local function leave(waiter)
  redis.call('ZREM', line, waiter)
  redis.call('ZREM', leases, waiter)
end

if op == 'release' then
  reclaim(nil)
  local removed = redis.call('ZREM', permits, ARGV[AO + 3])
  heads()
  return tostring(removed)
end
if op == 'leave' then
  reclaim(nil)
  leave(ARGV[AO + 3])
  redis.call('ZREM', permits, ARGV[AO + 3]) -- a permit it was given in a reply it never read (a timeout)
  heads()
  return '1'
end
if op ~= 'take' then
  return redis.error_reply('unknown operation ' .. tostring(op))
end

local lease = tonumber(ARGV[AO + 3])
local waiter = ARGV[AO + 4]
local rank = tonumber(ARGV[AO + 5])
local keep = tonumber(ARGV[AO + 6])
local with_slot = ARGV[AO + 7] == '1'
local expired = reclaim(lease)
if not redis.call('ZSCORE', line, waiter) then
  local ticket = redis.call('INCR', counter)
  redis.call('ZADD', line, string.format('%d', rank * 1000000000000 + ticket), waiter)
end
redis.call('ZADD', leases, string.format('%d', now + keep), waiter)
local in_use = redis.call('ZCARD', permits)
local ahead = redis.call('ZRANK', line, waiter) - (capacity - in_use) + 1
if ahead > 0 then
  local first = redis.call('ZRANGE', permits, 0, 0, 'WITHSCORES')
  local until_ms = first[2] and (tonumber(first[2]) - now) or -1
  return string.format('Q %d %d %d %d', ahead, in_use, expired, until_ms)
end
local slot = nil
if with_slot then
  slot = bucket_step()
  if type(slot) ~= 'string' then
    return slot -- the bucket's own error reply (bad settings): nothing taken
  end
  if string.sub(slot, 1, 1) ~= '1' then
    leave(waiter) -- both or neither: no permit; it asks again from the end of the line
    heads()
    return string.format('N %d %d |', in_use, expired) .. slot
  end
end
redis.call('ZADD', permits, string.format('%d', now + lease), waiter)
leave(waiter)
heads()
local text = string.format('P %d %d %d', in_use + 1, expired, now + lease)
if slot ~= nil then
  return text .. ' |' .. slot
end
return text
