--[[
permit_pool.lua: a cap on calls in flight, shared by the fleet. Permits are leased (a holder that dies costs its lease,
not its permit), each held under its caller's own id (a release after the lease ended removes nothing another call
holds: the id is a fencing token), and callers without one wait in a line ordered by class, then deadline (earliest
first: a caller that may wait 2 s goes before one that may wait 10 s and still has time), then arrival.
Its Java counterpart for one process is LocalPermitPool (same rules).

The pool is one thing for the whole fleet, like a bucket's configuration: every process that uses it registers what
it asks for (its capacity, its lease) under its own id, for as long as a permit it took may live; the capacity in
force is the smallest any live process asks for, and a permit is believed for as long as the longest lease of any
live process, so that a service with short leases never takes back the permits of one with long ones.

Run alone (RedisPermitPool): KEYS and ARGV below, from 1. Run with the token bucket inside (PERMIT_AND_BUCKET: the
token bucket's script as a function where this file says --@BUCKET@): KEYS[1] and ARGV[1..2] are the bucket's, and
this script's KEYS and ARGV follow them (KO = 1, AO = 2).

KEYS[KO+1] the permits: a sorted set, member = holder id, score = when its lease ends (Redis ms)
KEYS[KO+2] the line: a sorted set, member = waiter id, score = class x 1e14 + its deadline (Redis ms, set when it
           first asks: then + how long it may wait) x 10 + its ticket's last digit (arrival, among deadlines of one
           ms); exact in a double. Layouts before 3 scored class x 1e12 + ticket: during a rolling deploy from them,
           the older replicas' waiters go before this release's (the cap is the same).
KEYS[KO+3] the waiters' leases: a sorted set, member = waiter id, score = when it loses its place (Redis ms)
KEYS[KO+4] the ticket counter
KEYS[KO+5] the processes' configurations: a hash, field = a process's id, value = "<capacity> <lease ms> <until ms>";
           field "v" = the layout version (3), written by every process of this version; field "h" = the shortest
           hold lately (ms: a decaying minimum of the time from a permit's take to its release)
KEYS[KO+6] when each permit was taken: a sorted set, member = holder id, score = Redis ms (layout 3; entries of
           permits that ended otherwise are dropped when met)
KEYS[KO+7] what each waiter in line asks for (layout 4): a hash, field = waiter id, value = "<its lease ms>|<1 with a
           slot, else 0>|<the bucket's call>|<the bucket's settings>|<Redis ms when it asked>[|<where it hears>]"
           (the last field since layout 4's second release; an older script tells such a waiter its turn), so
           that a release grants the head of the line its permit (and its slot) in the same step. Waiters of
           layouts before 4 have none: their turn is published, and they ask again.
KEYS[KO+8] the permits granted that way: a hash, field = holder id, value = "<Redis ms of the grant> <the take's
           reply>", kept until the permit is released, for a waiter whose process missed the news and asks again
ARGV[AO+1] op: 'take' | 'release' | 'leave' | 'close'
ARGV[AO+2] the caller's capacity (whole, 1 .. 10000)
ARGV[AO+3] the caller's lease (ms, 100 .. 86400000)
ARGV[AO+4] the caller's process id (letters, digits, '-' and '_', at most 32)
ARGV[AO+5] take, leave: the waiter's id (also its permit's); release: the permit's id; close: ''
ARGV[AO+6] take: its class's rank (0 INTERACTIVE, 1 BATCH)
ARGV[AO+7] take: how long it keeps its place without asking again (ms)
ARGV[AO+8] take: '1' to book the bucket's slot in the same decision (PERMIT_AND_BUCKET only), else '0'
ARGV[AO+9] take: how long the waiter may wait (ms, 0 .. 86400000): its deadline is now + this when it first asks
ARGV[AO+10] take: where the waiter's process hears its grant, a suffix of the pool's channel (letters, digits, '-'
           and '_', at most 32); absent or '': the pool's channel itself

Every call but close registers the caller's configuration until now + its lease (a permit it took lives no longer;
renewed when less than 7/8 of that is left), then reclaims what is over: leases that ended (their holders died, or abandoned them: counted in the reply), permits
whose lease ends further ahead than any live process's lease (not believable: counted too), places whose waiters
stopped asking, and configurations past their time or unreadable. When permits are free, the ids of the waiters
whose turn it is are granted their permits (and their slots) in the same step, each grant published on
KEYS[KO+1] .. ':turn:' .. <the waiter's ARGV[AO+10]> (only its process listens there; KEYS[KO+1] .. ':turn' for
a waiter that gave none) as '+<waiter id> <the take's reply>'; the ids of those that asked without a stored ask
(older releases), or whose slot the bucket refused, are published on KEYS[KO+1] .. ':turn' as before, joined by
','. close takes the caller's configuration out: it holds no permit and waits in no line any more.

A key of the wrong type (a string or a list where a set or a hash belongs: an operator, another program) is deleted
and the call proceeds on an empty one: the pool heals instead of failing every call. Nothing stays behind an idle
pool: its sorted sets are removed by Redis when empty, the counter and the configurations expire.

Replies, space-separated; <cap> is the capacity in force:
  take, a permit:       'P <inUse> <expired> <leaseEndMs> <cap>' (with the bucket: ' |' and the bucket's reply)
  take, its turn but the bucket refused: 'N <inUse> <expired> <cap> |<the bucket's reply>' (no permit, the place left)
  take, not its turn:   'Q <ahead> <inUse> <expired> <ms until the first lease ends, or -1> <cap>'
  take, refused at once: 'R <ahead> <inUse> <expired> <ms until the earliest a permit may come back> <cap>': even
                        first in line, no permit comes back before its deadline (the earliest-taken permit's take
                        plus the shortest hold lately); it has left the line
  release: '<1 when the permit was held, 0 when it was not (it freed nothing)> <expired> <inUse> <cap>'
  leave: '1 <expired> <inUse> <cap>'; close: '1'
  release and leave: then, for each grant the step made, a newline and the grant as published ('+<waiter id> <the
                        take's reply>'), so that a waiter of the releasing process hears of it without the channel
]]

local KO, AO = 0, 0
local bucket_step = nil -- the token bucket's step, when it runs inside (PERMIT_AND_BUCKET)
--@BUCKET@

local LAYOUT = '4'
local MAX_LEASE = 86400000 -- a day: the longest lease any process may ask for
local SLACK = 1000 -- 1 s: how far past the longest live lease a permit's end may lie (clocks of a failover)

local permits, line, leases, counter, configs = KEYS[KO + 1], KEYS[KO + 2], KEYS[KO + 3], KEYS[KO + 4], KEYS[KO + 5]
local taken, asks, grants = KEYS[KO + 6], KEYS[KO + 7], KEYS[KO + 8]
local op = ARGV[AO + 1]
local my_capacity = tonumber(ARGV[AO + 2])
local my_lease = tonumber(ARGV[AO + 3])
local me = ARGV[AO + 4]
if op ~= 'take' and op ~= 'release' and op ~= 'leave' and op ~= 'close' then
  return redis.error_reply('unknown operation ' .. tostring(op))
end
if my_capacity == nil or my_lease == nil or me == nil or not string.match(me, '^[%w_-]+$') or #me > 32 then
  return redis.error_reply('bad settings ' .. tostring(ARGV[AO + 2]) .. ' ' .. tostring(ARGV[AO + 3]) .. ' '
    .. tostring(me))
end

-- The step, run once; again after healing a key of the wrong type (its command failed with WRONGTYPE).
local function run()
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

  if op == 'close' then
    redis.call('HDEL', configs, me)
    return '1'
  end

  -- The fleet's configurations: the caller's (renewed when less than 7/8 of its time is left, or changed), and every
  -- other one still live.
  local capacity, longest = my_capacity, my_lease
  local flat = redis.call('HGETALL', configs)
  local dead = {}
  local mine = nil
  local shortest = nil -- the shortest hold lately (ms), nil: not known
  for i = 1, #flat, 2 do
    local field, value = flat[i], flat[i + 1]
    if field == me then
      mine = value
    elseif field == 'h' then
      shortest = tonumber(value)
      if shortest == nil or shortest < 0 or shortest > MAX_LEASE then
        dead[#dead + 1] = field
        shortest = nil
      end
    elseif field ~= 'v' then
      local c, l, u = string.match(value, '^(%d+) (%d+) (%d+)$')
      c, l, u = tonumber(c), tonumber(l), tonumber(u)
      if c == nil or c < 1 or l < 1 or l > MAX_LEASE or u > now + MAX_LEASE + SLACK or u < now then
        dead[#dead + 1] = field -- past its time, or not a configuration at all
      else
        capacity = math.min(capacity, c)
        longest = math.max(longest, l)
      end
    end
  end
  if #dead > 0 then
    redis.call('HDEL', configs, unpack(dead))
  end
  local c, l, u = string.match(mine or '', '^(%d+) (%d+) (%d+)$')
  if tonumber(c) ~= my_capacity or tonumber(l) ~= my_lease or tonumber(u) - now < my_lease * 0.875
      or tonumber(u) > now + my_lease then
    redis.call('HSET', configs, me, string.format('%d %d %d', my_capacity, my_lease, now + my_lease), 'v', LAYOUT)
    redis.call('PEXPIRE', configs, longest + SLACK)
  end

  local function reclaim()
    local over = redis.call('ZRANGEBYSCORE', permits, '-inf', now)
    local far = redis.call('ZRANGEBYSCORE', permits, '(' .. string.format('%d', now + longest + SLACK), '+inf')
    for _, id in ipairs(far) do
      over[#over + 1] = id
    end
    if #over > 0 then
      redis.call('ZREM', permits, unpack(over))
      redis.call('HDEL', grants, unpack(over))
    end
    local gone = redis.call('ZRANGEBYSCORE', leases, '-inf', now)
    if #gone > 0 then
      redis.call('ZREM', line, unpack(gone))
      redis.call('ZREM', leases, unpack(gone))
      redis.call('HDEL', asks, unpack(gone))
    end
    return #over
  end

  local function leave(waiter)
    redis.call('ZREM', line, waiter)
    redis.call('ZREM', leases, waiter)
    redis.call('HDEL', asks, waiter)
  end

  -- Gives waiter w its permit, and its slot when it asked for one, as its own take would: true when granted. Its
  -- slot is booked with what it stored, its longest wait less the time it has waited since it asked.
  local granted_now = {} -- the grants of this step, as published
  local function grant(w, ask)
    local w_lease, with, call, settings, asked, hears = string.match(ask or '',
      '^(%d+)|([01])|([^|]*)|([^|]*)|(%d+)|?([%w_-]*)$')
    w_lease, asked = tonumber(w_lease), tonumber(asked)
    if w_lease == nil or w_lease < 1 or w_lease > MAX_LEASE or asked == nil or asked > now then
      return false
    end
    local slot = nil
    if with == '1' then
      local op_, cost, micros, clock, rest = string.match(call, '^(acquire) (%S+) (%d+) (%d*) (.*)$')
      if bucket_step == nil or op_ == nil then
        return false
      end
      local waited = (now - asked) * 1000 -- its ask, as it would send it now (on its own clock, if it sent one)
      local a1, a2 = ARGV[1], ARGV[2]
      ARGV[1] = string.format('acquire %s %d %s %s', cost, math.max(0, tonumber(micros) - waited),
        clock == '' and '' or string.format('%d', tonumber(clock) + waited), rest)
      ARGV[2] = settings
      local ok, answer = pcall(bucket_step)
      ARGV[1], ARGV[2] = a1, a2
      if not ok or type(answer) ~= 'string' or string.sub(answer, 1, 1) ~= '1' then
        return false -- its slot refused (or its ask unreadable): it asks again, and hears why
      end
      slot = answer
    end
    redis.call('ZADD', permits, string.format('%d', now + w_lease), w)
    redis.call('ZADD', taken, string.format('%d', now), w)
    leave(w)
    local text = string.format('P %d 0 %d %d', redis.call('ZCARD', permits), now + w_lease, capacity)
    if slot ~= nil then
      text = text .. ' |' .. slot
    end
    redis.call('HSET', grants, w, string.format('%d ', now) .. text)
    redis.call('PEXPIRE', grants, longest + SLACK)
    local news = '+' .. w .. ' ' .. text
    redis.call('PUBLISH', permits .. ':turn' .. (hears == '' and '' or ':' .. hears), news)
    granted_now[#granted_now + 1] = news
    return true
  end

  -- The waiters whose turn it is now: granted their permits where they said what they ask for, else told.
  local function heads()
    local free = capacity - redis.call('ZCARD', permits)
    if free > 0 then
      local ids = redis.call('ZRANGE', line, 0, free - 1)
      local told = {}
      for _, w in ipairs(ids) do
        if not grant(w, redis.call('HGET', asks, w)) then
          told[#told + 1] = w
        end
      end
      if #told > 0 then
        redis.call('PUBLISH', permits .. ':turn', table.concat(told, ','))
      end
    end
  end

  -- A permit given back: how long it was held makes the shortest hold lately (down at once, up by a tenth).
  local function held_for(holder)
    local since = tonumber(redis.call('ZSCORE', taken, holder))
    redis.call('ZREM', taken, holder)
    if since ~= nil and since <= now then
      local hold = now - since
      local h = shortest == nil and hold or (hold < shortest and hold or shortest + (hold - shortest) / 10)
      redis.call('HSET', configs, 'h', string.format('%d', math.floor(h)))
    end
  end

  -- When the earliest-taken permit still held was taken (Redis ms), or nil; entries of ended permits are dropped.
  local function earliest_taken()
    while true do
      local first = redis.call('ZRANGE', taken, 0, 0, 'WITHSCORES')
      if #first == 0 then
        return nil
      end
      if redis.call('ZSCORE', permits, first[1]) then
        return tonumber(first[2])
      end
      redis.call('ZREM', taken, first[1])
    end
  end

  local expired = reclaim()
  if op == 'release' then
    local removed = redis.call('ZREM', permits, ARGV[AO + 5])
    redis.call('HDEL', grants, ARGV[AO + 5])
    if removed == 1 then
      held_for(ARGV[AO + 5])
    end
    heads()
    return table.concat({string.format('%d %d %d %d', removed, expired, redis.call('ZCARD', permits), capacity),
      unpack(granted_now)}, '\n')
  end
  if op == 'leave' then
    leave(ARGV[AO + 5])
    redis.call('ZREM', permits, ARGV[AO + 5]) -- a permit it was given in a reply it never read (a timeout)
    redis.call('ZREM', taken, ARGV[AO + 5])
    redis.call('HDEL', grants, ARGV[AO + 5])
    heads()
    return table.concat({string.format('1 %d %d %d', expired, redis.call('ZCARD', permits), capacity),
      unpack(granted_now)}, '\n')
  end

  local waiter = ARGV[AO + 5]
  local rank = tonumber(ARGV[AO + 6])
  local keep = tonumber(ARGV[AO + 7])
  local with_slot = ARGV[AO + 8] == '1'
  local may_wait = math.floor(math.max(0, math.min(MAX_LEASE, tonumber(ARGV[AO + 9]) or MAX_LEASE)))
  local given = redis.call('HGET', grants, waiter)
  local held = given and redis.call('ZSCORE', permits, waiter)
  if given then
    redis.call('HDEL', grants, waiter)
  end
  if held then -- granted by a release, and its process missed the news: its permit, never a place in line again
    local at, text = string.match(given, '^(%d+) (P .*)$')
    local head, done, wait, left, clock, rest = string.match(text or '', '^(.-) |(%S+) (%S+) (%S+) (%S+)(.*)$')
    local elapsed = at ~= nil and (now - tonumber(at)) * 1000 or nil
    if at ~= nil and head == nil and not with_slot then
      return text -- a permit alone
    elseif head ~= nil and elapsed ~= nil and tonumber(wait) ~= nil and tonumber(wait) >= elapsed then
      return string.format('%s |%s %d %s %d%s', head, done, tonumber(wait) - elapsed, left,
        tonumber(clock) + elapsed, rest) -- its slot, still ahead
    end
    head = string.format('P %d %d %d %d', redis.call('ZCARD', permits), expired, tonumber(held), capacity)
    if not with_slot then
      return head
    end
    local slot = bucket_step() -- its slot passed unused (never sent late): the permit kept, a slot booked anew
    if type(slot) ~= 'string' then
      return slot
    end
    if string.sub(slot, 1, 1) ~= '1' then
      redis.call('ZREM', permits, waiter) -- both or neither
      redis.call('ZREM', taken, waiter)
      heads()
      return string.format('N %d %d %d |', redis.call('ZCARD', permits), expired, capacity) .. slot
    end
    return head .. ' |' .. slot
  end
  if not redis.call('ZSCORE', line, waiter) then
    local ticket = redis.call('INCR', counter)
    redis.call('PEXPIRE', counter, longest + keep + SLACK) -- the sorted sets go when empty; the counter with them
    redis.call('ZADD', line, string.format('%d', rank * 100000000000000 + (now + may_wait) * 10 + ticket % 10), waiter)
  end
  redis.call('ZADD', leases, string.format('%d', now + keep), waiter)
  local in_use = redis.call('ZCARD', permits)
  local ahead = redis.call('ZRANK', line, waiter) - (capacity - in_use) + 1
  if ahead > 0 then
    local score = tonumber(redis.call('ZSCORE', line, waiter))
    local deadline = math.floor((score - rank * 100000000000000) / 10)
    local since = shortest ~= nil and earliest_taken() or nil
    if since ~= nil and score >= rank * 100000000000000 + 10 * now - 10 and since + shortest > deadline then
      leave(waiter) -- even first in line, no permit comes back before its deadline: refused now, not at it
      return string.format('R %d %d %d %d %d', ahead, in_use, expired, since + shortest - now, capacity)
    end
    -- what it asks for, so that a release grants it its permit (and its slot) in the same step
    local hears = ARGV[AO + 10] or ''
    if not string.match(hears, '^[%w_-]*$') or #hears > 32 then
      hears = ''
    end
    redis.call('HSET', asks, waiter, string.format('%d|%s|%s|%s|%d', my_lease, with_slot and '1' or '0',
      with_slot and ARGV[1] or '', with_slot and ARGV[2] or '', now) .. (hears == '' and '' or '|' .. hears))
    redis.call('PEXPIRE', asks, longest + keep + SLACK)
    local first = redis.call('ZRANGE', permits, 0, 0, 'WITHSCORES')
    local until_ms = first[2] and (tonumber(first[2]) - now) or -1
    return string.format('Q %d %d %d %d %d', ahead, in_use, expired, until_ms, capacity)
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
      return string.format('N %d %d %d |', in_use, expired, capacity) .. slot
    end
  end
  redis.call('ZADD', permits, string.format('%d', now + my_lease), waiter)
  redis.call('ZADD', taken, string.format('%d', now), waiter)
  redis.call('PEXPIRE', taken, longest + SLACK)
  leave(waiter)
  heads()
  local text = string.format('P %d %d %d %d', in_use + 1, expired, now + my_lease, capacity)
  if slot ~= nil then
    return text .. ' |' .. slot
  end
  return text
end

local ok, result = pcall(run)
if ok then
  return result
end
local message = type(result) == 'table' and result.err or tostring(result)
if not string.find(message, 'WRONGTYPE', 1, true) then
  return redis.error_reply(message)
end
for i, kind in ipairs({ 'zset', 'zset', 'zset', 'string', 'hash', 'zset', 'hash', 'hash' }) do
  local actual = redis.call('TYPE', KEYS[KO + i])['ok']
  if actual ~= 'none' and actual ~= kind then
    redis.call('DEL', KEYS[KO + i]) -- an operator's or another program's value: the pool's own, empty, instead
  end
end
return run()
