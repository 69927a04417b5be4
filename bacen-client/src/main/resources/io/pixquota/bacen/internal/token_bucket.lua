--[[
Token bucket with reservations: refill, decide and record in one atomic step.

KEYS[1]  the bucket's hash, e.g. "pixquota:{pix}:tb". The hash tag {pix} keeps every key of one bucket in one
         Redis Cluster slot. Fields: u = updatedAt (microseconds, bucket clock); e = the state's epoch (Redis TIME in
         microseconds when this state was created: a new epoch means the old state was lost or expired);
         t:<capacity>:<refill> = tokens of that limit (a decimal string; may be negative: tokens already promised to
         callers who are waiting for their slot). Limits are stored by what they are, not by their position, so two
         replicas that list the same limits in another order share the same tokens.
ARGV[1]  operation: "acquire" | "charge" | "refund"
ARGV[2]  cost, a decimal > 0 (validated by the caller: 0 < cost <= capacity of every limit, and at most 1e12)
ARGV[3]  acquire only: the longest wait the caller accepts, in whole microseconds (>= 0)
ARGV[4]  "" to use the Redis clock (TIME), or the caller's clock in microseconds (client-clock mode)
ARGV[5]  n, the number of limits checked and charged together (e.g. 10/s and 600/min)
ARGV[6], ARGV[7], ...  capacity_i and refill_i (tokens per second) of limit i = 1..n, as the caller formats them
         (capacity <= 1e12, 1e-6 <= refill <= 1e12, validated by the caller)

Returns an array:
  [1] 1 if granted (acquire), else 0; always 1 for charge and refund
  [2] wait in whole microseconds (rounded up, at most 2^53 - 1) until the caller's booked slot; for a refusal, the
      wait it would have needed; 0 for charge and refund
  [3] tokens left after the operation, the smallest over the limits, as a decimal string (negative = booked ahead)
  [4] now, the bucket clock in microseconds at which the decision was taken (slot = now + wait)
  [5] the state's epoch, as a decimal string

The math (B = capacity, r = refill per second, last = updatedAt, all times in microseconds):
  now    = max(clock, last)                       -- never backwards: a late clock mints nothing
           (a client clock is first capped at Redis's TIME: an early clock mints nothing either)
  tokens = min(B, tokens + r * (now - last) / 1e6)
  acquire c: need = c - tokens; wait = need <= 0 and 0 or need / r * 1e6, the largest over the limits.
           wait > maxWait: record nothing, return (0, wait). Otherwise tokens = tokens - c for every limit,
           return (1, wait): the caller sleeps exactly `wait` and proceeds, with no second round trip.
  charge c: tokens = tokens - c (may go below zero: later callers wait longer). refund c: min(B, tokens + c).
  The key expires (PEXPIRE) once every limit would be full again: max over i of (B_i - tokens_i) / r_i, plus how
  far `now` is ahead of Redis's own clock in client-clock mode, so that an expiry never refills early (at most
  1e13 ms: every value written is computed first, and nothing can fail after the write).

Worked example, B = 8, r = 9/s, bucket full at t = 0, 10 calls of cost 1 at t = 0:
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
local max_wait = tonumber(ARGV[3])
local n = tonumber(ARGV[5])

local t = redis.call('TIME')
local redis_now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = redis_now
if ARGV[4] ~= '' then
  now = tonumber(ARGV[4])
  if now > redis_now then
    now = redis_now -- a client clock ahead of Redis's cannot refill ahead of time
  end
end

local fields = { 'u', 'e' }
for i = 1, n do
  fields[i + 2] = 't:' .. ARGV[4 + 2 * i] .. ':' .. ARGV[5 + 2 * i]
end
local state = redis.call('HMGET', key, unpack(fields))

local last = tonumber(state[1])
if last ~= nil and last > now then
  now = last
end
local epoch = state[2]
if last == nil or not epoch then
  epoch = string.format('%d', redis_now) -- a new state: whoever booked in an older one must not rely on it
end

local tokens = {}
for i = 1, n do
  local capacity = tonumber(ARGV[4 + 2 * i])
  local rate = tonumber(ARGV[5 + 2 * i])
  local stored = tonumber(state[i + 2])
  if stored == nil or last == nil then
    tokens[i] = capacity
  else
    tokens[i] = math.min(capacity, stored + rate * (now - last) / 1000000)
  end
end

local wait = 0
if op == 'acquire' then
  for i = 1, n do
    local rate = tonumber(ARGV[5 + 2 * i])
    if tokens[i] < cost then
      local w = (cost - tokens[i]) / rate * 1000000
      if w > wait then
        wait = w
      end
    end
  end
  wait = math.min(math.ceil(wait), MAX_WAIT)
end

local function smallest()
  local m = tokens[1]
  for i = 2, n do
    if tokens[i] < m then
      m = tokens[i]
    end
  end
  return string.format('%.17g', m)
end

if op == 'acquire' and wait > max_wait then
  return { 0, wait, smallest(), now, epoch }
end

for i = 1, n do
  local capacity = tonumber(ARGV[4 + 2 * i])
  if op == 'refund' then
    tokens[i] = math.min(capacity, tokens[i] + cost)
  elseif op == 'acquire' or op == 'charge' then
    tokens[i] = tokens[i] - cost
  else
    return redis.error_reply('unknown operation ' .. tostring(op))
  end
end

local ttl = 0
local hset = { 'u', string.format('%.17g', now), 'e', epoch }
for i = 1, n do
  local capacity = tonumber(ARGV[4 + 2 * i])
  local rate = tonumber(ARGV[5 + 2 * i])
  hset[#hset + 1] = fields[i + 2]
  hset[#hset + 1] = string.format('%.17g', tokens[i])
  local to_full = (capacity - tokens[i]) / rate * 1000
  if to_full > ttl then
    ttl = to_full
  end
end
ttl = math.min(math.ceil(ttl + math.max(0, now - redis_now) / 1000) + 1, MAX_TTL)
redis.call('HSET', key, unpack(hset))
redis.call('PEXPIRE', key, string.format('%d', ttl))

return { 1, wait, smallest(), now, epoch }
