--[[
Token bucket with reservations, shared by a fleet: refill, decide and record in one atomic step.
internal/BucketStep.java is the same step in Java, operation for operation (a differential test runs both).

KEYS[1]  the bucket's hash, e.g. "pixquota:{pix}:tb". The hash tag {pix} keeps every key of one bucket in one
         Redis Cluster slot. Fields:
           u = updatedAt (microseconds, bucket clock); e = the state's epoch (Redis TIME in microseconds when this
               state was created: a new epoch means the old state was lost or expired);
           t:<capacity>:<refill> = tokens of that limit (a decimal string; may be negative: tokens already promised
               to callers who are waiting for their slot). Stored by what the limit is, not by its position;
           c:<configuration> = until when (microseconds) that configuration counts as live: a configuration is the
               sorted list of its limits, "<capacity>:<refill>,<capacity>:<refill>...";
           k = when the provider last refused a call booked under the current rate (microseconds, bucket clock),
               f = the rate factor right after that cut, g = the rate's generation (Redis TIME in microseconds at
               that cut, always above the epoch and the previous one), h = no slot before this (microseconds,
               bucket clock), the provider's Retry-After;
           x = until when the key is known to live (Redis's clock, milliseconds, 1 ms short of its expiry).
         A field is written only when its value changes (u and the tokens at every call).
ARGV[1]  operation: "acquire" | "charge" | "refund" | "cut"
ARGV[2]  cost, a decimal > 0 (validated by the caller: 0 < cost <= capacity of every limit, and at most 1e12)
ARGV[3]  acquire: the longest wait the caller accepts, whole microseconds (>= 0); cut: how long the provider asked
         to wait (Retry-After), whole microseconds (>= 0; 0 when it did not say); others: 0
ARGV[4]  "" to use the Redis clock (TIME), or the caller's clock in microseconds (client-clock mode)
ARGV[5]  cut: the rate generation the refused call was booked under; others: ""
ARGV[6]  the caller's settings, fixed for a bucket, separated by single spaces:
           the configuration lease, whole microseconds (> 0);
           the rate adaptation: decrease (0 < beta < 1), increase per second (alpha > 0, a fraction of the configured
           rates), floor (0 < floor <= 1);
           the caller's configuration: its limits, checked and charged together (e.g. 10/s and 600/min), each
           "<capacity>:<refill per second>" as the caller formats them (capacity <= 1e12, 1e-6 <= refill <= 1e12,
           validated by the caller), sorted as strings and joined by ",".
         e.g. "30000000 0.85 0.005 0.25 10.0:10.0,600.0:10.0"

Returns one string, values separated by single spaces:
  done   acquire: 1 if granted, else 0; cut: 1 if the rate was cut, 0 if the refused call was booked before the last
         cut (its news is old); charge, refund: 1
  wait   in whole microseconds (rounded up, at most 2^53 - 1) until the caller's booked slot; for a refusal, the
         wait it would have needed; 0 for the other operations
  tokens left after the operation, the smallest over the limits in force (negative = booked ahead)
  now    the bucket clock in microseconds at which the decision was taken (slot = now + wait)
  epoch  the state's epoch
and, unless the rate was never cut, no hold was ever set and no other configuration is live (then they are the
epoch, 1, 0, 1 and ""):
  generation      the rate generation now (g, or the epoch when never cut)
  factor          the rate factor now (1 = the configured rates)
  hold            no slot before this (microseconds)
  configurations  how many configurations are live, this one included
  others          the other live configurations, separated by ";" (empty when none)

One configuration in force: the limits in force are those of every live configuration (the caller's, and every
other used within its lease), so a call must fit each of them and is charged on each: the fleet is held to the
strictest setting in use, limit by limit. A limit that is new to a state starts as busy as the busiest limit kept
(as long until full), not full. Configurations past their lease, and limits no live configuration has, are deleted.
A call renews its configuration's lease (to now + lease) only when less than 7/8 of it is left, so a configuration
stays live for between 7/8 of its lease and its lease after its last call.

Rate adaptation (AIMD on the factor f, 0 < floor <= f <= 1, applied to every refill of the limits in force):
  f(t) = min(1, max(floor, f_cut + alpha * (t - k) / 1e6)), and 1 when never cut.
  cut, for a call booked under the current generation (news): f_cut = max(floor, beta * f(now)); k = now. For news,
  or for older news whose Retry-After ends later than h: a new generation g (every slot booked before is void, and
  its caller books again), h = max(h, now + Retry-After), every limit's tokens = -refill * f * (h - now) / 1e6
  (empty when the provider accepts again: the provider said it is empty), and "<epoch>:<g>" is published on
  KEYS[1] .. ":fleet", so that every process hears of it at once.

The math (B = capacity, r = refill per second, last = updatedAt, all times in microseconds):
  now    = max(clock, last)                       -- never backwards: a late clock mints nothing
           (a client clock is first capped at Redis's TIME: an early clock mints nothing either)
  tokens = min(B, tokens + r * f(last) * (now - last) / 1e6)   -- f(last) <= f on [last, now]: never early
  acquire c: need = c - tokens; wait = need <= 0 and 0 or need / (r * f(now)) * 1e6, the largest over the limits,
           and at least h - now. wait > maxWait: record nothing, return (0, wait). Otherwise, for every limit,
           tokens = min(tokens, B - r * f(now) * wait / 1e6) - c (the call is booked at now + wait for each limit:
           one that would have room sooner cannot bank more than its capacity by then; for the limit that sets the
           wait, and for a bucket of one limit, this is tokens - c), return (1, wait): the caller sleeps exactly
           `wait` and proceeds, with no second round trip.
  charge c: tokens = tokens - c (may go below zero: later callers wait longer). refund c: min(B, tokens + c).
  The key may expire (PEXPIRE) once every limit would be full again, every live configuration's lease has ended,
  the rate is back to 1 and the hold is over, plus how far `now` is ahead of Redis's own clock in client-clock mode,
  so that an expiry never refills early: that TTL (+ 1 ms) is the least it must live. A call sets a new expiry only
  when the key would not live that long, and then gives it a quarter more (TTL + floor(TTL / 4), at most 1e13 ms), so
  that a busy bucket pays a PEXPIRE once in a while, not at every call. Every value written is computed first, and
  nothing can fail after the write.

Worked example, B = 8, r = 9/s, one configuration, never cut, bucket full at t = 0, 10 calls of cost 1 at t = 0:
  calls 1..8 find tokens 8, 7, ..., 1: granted, wait 0; tokens end at 0.
  call 9 finds 0: need 1, wait = 1/9 s = 111112 us (rounded up); tokens -1.
  call 10 finds -1: need 2, wait = 222223 us; tokens -2.
  at t = 0.5 s, call 11 finds min(8, -2 + 9 * 0.5) = 2.5: granted at once, tokens 1.5.
  Slots therefore sit 1/r apart in arrival order, and work admitted in any interval of length T is at most B + r*T.
]]

local MAX_WAIT = 9007199254740991 -- 2^53 - 1: the largest whole number a Lua number holds exactly
local MAX_TTL = 10000000000000 -- 1e13 ms, about 317 years

local key = KEYS[1]
local op = ARGV[1]
local cost = tonumber(ARGV[2])
local arg_micros = tonumber(ARGV[3])
local booked_gen = tonumber(ARGV[5])
local lease, beta, alpha, floor, my_id = string.match(ARGV[6], '^(%S+) (%S+) (%S+) (%S+) (%S+)$')
lease = tonumber(lease)
beta = tonumber(beta)
alpha = tonumber(alpha)
floor = tonumber(floor)
if op ~= 'acquire' and op ~= 'charge' and op ~= 'refund' and op ~= 'cut' then
  return redis.error_reply('unknown operation ' .. tostring(op))
end
if my_id == nil or lease == nil or beta == nil or alpha == nil or floor == nil then
  return redis.error_reply('bad settings ' .. tostring(ARGV[6]))
end

local t = redis.call('TIME')
local redis_now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = redis_now
if ARGV[4] ~= '' then
  now = tonumber(ARGV[4])
  if now > redis_now then
    now = redis_now -- a client clock ahead of Redis's cannot refill ahead of time
  end
end

local flat = redis.call('HGETALL', key)
local h = {}
for i = 1, #flat, 2 do
  h[flat[i]] = flat[i + 1]
end

local last = tonumber(h['u'])
local epoch = h['e']
local fresh = last == nil or epoch == nil
if fresh then
  h = {} -- a new state: whoever booked in an older one must not rely on it
  last = nil
  epoch = string.format('%d', redis_now)
elseif last > now then
  now = last
end

local k = tonumber(h['k'])
local f_cut = tonumber(h['f'])
local g = tonumber(h['g'])
local hold = tonumber(h['h']) or 0
local function factor(at)
  if k == nil then
    return 1
  end
  local v = f_cut + alpha * (at - k) / 1000000
  if v > 1 then
    return 1
  elseif v < floor then
    return floor
  end
  return v
end

-- Live configurations: the caller's, and the others within their lease. One pass over the hash's fields, told
-- apart by their first two bytes ("c:" a configuration, "t:" a limit's tokens).
local leases = {}
local ids = {}
local dead = {}
local stored_limits = {}
local my_field = 'c:' .. my_id
for field, value in pairs(h) do
  if string.byte(field, 2) == 58 then -- ':'
    local first = string.byte(field, 1)
    if first == 116 then -- 't'
      stored_limits[#stored_limits + 1] = field
    elseif first == 99 and field ~= my_field then -- 'c', another configuration
      local ends = tonumber(value)
      if ends >= now then
        local id = string.sub(field, 3)
        leases[id] = ends
        ids[#ids + 1] = id
      else
        dead[#dead + 1] = field
      end
    end
  end
end
if #ids > 1 then
  table.sort(ids)
end
local my_lease = tonumber(h[my_field])
local renewed = my_lease == nil or my_lease - now < lease * 0.875 -- less than 7/8 of the lease left
if renewed then
  my_lease = now + lease
end
leases[my_id] = my_lease

-- The limits in force: the caller's first, then the other configurations', each once.
local limits = {}
local in_force = {}
local function add(id)
  for capacity, refill in string.gmatch(id, '([^:,]+):([^:,]+)') do
    local field = 't:' .. capacity .. ':' .. refill
    if not in_force[field] then
      in_force[field] = true
      limits[#limits + 1] = { field, tonumber(capacity), tonumber(refill) }
    end
  end
end
add(my_id)
for _, id in ipairs(ids) do
  add(id)
end
for _, field in ipairs(stored_limits) do
  if not in_force[field] then
    dead[#dead + 1] = field
  end
end
if h['h'] ~= nil and hold <= now then
  dead[#dead + 1] = 'h' -- over (written again below if a cut sets a new one)
end

local f_last = factor(last or now)
local f_now = factor(now)
local tokens = {}
local busiest = 0
for i, l in ipairs(limits) do
  local stored = tonumber(h[l[1]])
  if last == nil then
    tokens[i] = l[2]
  elseif stored ~= nil then
    tokens[i] = math.min(l[2], stored + l[3] * f_last * (now - last) / 1000000)
    local to_full = (l[2] - tokens[i]) / (l[3] * f_now)
    if to_full > busiest then
      busiest = to_full
    end
  end
end
for i, l in ipairs(limits) do
  if tokens[i] == nil then
    tokens[i] = l[2] - l[3] * f_now * busiest -- new to this state: as long until full as the busiest limit
  end
end

local wait = 0
if op == 'acquire' then
  for i, l in ipairs(limits) do
    if tokens[i] < cost then
      local w = (cost - tokens[i]) / (l[3] * f_now) * 1000000
      if w > wait then
        wait = w
      end
    end
  end
  if hold - now > wait then
    wait = hold - now
  end
  wait = math.min(math.ceil(wait), MAX_WAIT)
end

local done = 1
local generation = g or tonumber(epoch)
local function reply()
  local m = tokens[1]
  for i = 2, #limits do
    if tokens[i] < m then
      m = tokens[i]
    end
  end
  local text = string.format('%d %d %.17g %d %s', done, wait, m, now, epoch)
  if g == nil and k == nil and hold == 0 and #ids == 0 then
    return text -- never cut, never held, alone: generation = epoch, factor 1, hold 0, one configuration
  end
  return string.format('%s %d %.17g %d %d %s', text, generation, f_now, hold, #ids + 1, table.concat(ids, ';'))
end

if op == 'acquire' and wait > arg_micros then
  done = 0
  return reply()
end

local published = false
local cut = false
if op == 'cut' then
  local news = booked_gen ~= nil and booked_gen >= generation -- booked under the current rate: a cut
  local longer = arg_micros > 0 and now + arg_micros > hold -- a Retry-After that ends later than the hold
  if news then
    f_cut = math.max(floor, beta * f_now)
    f_now = f_cut
    k = now
    cut = true
  else
    done = 0
  end
  if news or longer then
    -- A new generation: every slot booked before is void (its caller books again), and the bucket is empty until
    -- the provider accepts again.
    g = math.max(redis_now, generation + 1)
    generation = g
    if longer then
      hold = now + arg_micros
    end
    for i, l in ipairs(limits) do
      tokens[i] = -(l[3] * f_now) * math.max(0, hold - now) / 1000000
    end
    published = true
  end
else
  for i, l in ipairs(limits) do
    if op == 'refund' then
      tokens[i] = math.min(l[2], tokens[i] + cost)
    elseif op == 'acquire' then
      -- Booked at now + wait for every limit: a limit that would have had room sooner cannot keep what it would
      -- refill beyond its capacity until then (else a later call could take a slot before this one's and bunch).
      tokens[i] = math.min(tokens[i], l[2] - l[3] * f_now * wait / 1000000) - cost
    else
      tokens[i] = tokens[i] - cost
    end
  end
end

local ttl = 0
local hset = { 'u', string.format('%d', now) }
if fresh then
  hset[3] = 'e'
  hset[4] = epoch
end
if renewed then
  hset[#hset + 1] = my_field
  hset[#hset + 1] = string.format('%d', my_lease)
end
for i, l in ipairs(limits) do
  hset[#hset + 1] = l[1]
  hset[#hset + 1] = string.format('%.17g', tokens[i])
  local to_full = (l[2] - tokens[i]) / (l[3] * f_now) * 1000
  if to_full > ttl then
    ttl = to_full
  end
end
for _, ends in pairs(leases) do
  if (ends - now) / 1000 > ttl then
    ttl = (ends - now) / 1000
  end
end
if published then -- a new generation (g, and h when longer), and a cut's k and f when news
  hset[#hset + 1] = 'g'
  hset[#hset + 1] = string.format('%d', g)
  if cut then
    hset[#hset + 1] = 'k'
    hset[#hset + 1] = string.format('%d', k)
    hset[#hset + 1] = 'f'
    hset[#hset + 1] = string.format('%.17g', f_cut)
  end
  if hold > now then
    hset[#hset + 1] = 'h'
    hset[#hset + 1] = string.format('%d', hold)
  end
end
if k ~= nil and (1 - f_now) / alpha * 1000 > ttl then
  ttl = (1 - f_now) / alpha * 1000 -- the rate's way back to the configured one is part of the state
end
if hold > now and (hold - now) / 1000 > ttl then
  ttl = (hold - now) / 1000
end
ttl = math.min(math.ceil(ttl + math.max(0, now - redis_now) / 1000) + 1, MAX_TTL)
local redis_ms = math.floor(redis_now / 1000)
local lives = tonumber(h['x'])
local expire = lives == nil or redis_ms + ttl > lives
if expire then
  ttl = math.min(ttl + math.floor(ttl / 4), MAX_TTL)
  hset[#hset + 1] = 'x'
  hset[#hset + 1] = string.format('%d', redis_ms + ttl - 1)
end
if fresh then
  redis.call('DEL', key)
elseif #dead > 0 then
  redis.call('HDEL', key, unpack(dead))
end
redis.call('HSET', key, unpack(hset))
if expire then
  redis.call('PEXPIRE', key, string.format('%d', ttl))
end
if published then
  -- Tells every process of the fleet at once, so that callers sleeping on void slots book again now rather than
  -- at their process's next round trip: "<epoch>:<generation>".
  redis.call('PUBLISH', key .. ':fleet', epoch .. ':' .. string.format('%d', g))
end

return reply()
