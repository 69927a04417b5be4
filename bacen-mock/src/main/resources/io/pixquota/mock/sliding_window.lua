--[[
Sliding window log shared by every mock instance: at most `limit` requests in any window of `window` microseconds.

KEYS[1]  sorted set of accepted requests (score = arrival time in microseconds, Redis clock)
ARGV[1]  "acquire" | "charge" | "state"
ARGV[2]  window length in microseconds
ARGV[3]  limit (requests per window)
ARGV[4]  a member unique to this request (instance id + counter)
ARGV[5]  charge only: how many extra entries to record

Returns { allowed (1/0), remaining, microseconds until the oldest entry leaves the window (0 if empty) }.
Refusals record nothing. Worked example, limit 3 per 1 s: requests at 0.0, 0.1, 0.2 s pass (remaining 2, 1, 0); one at
0.5 s is refused with 500000 us until the 0.0 entry leaves; one at 1.05 s passes (the 0.0 entry left at 1.0 s).
]]
local key = KEYS[1]
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])

redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)

local function until_oldest_leaves()
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if oldest[2] == nil then
    return 0
  end
  return math.max(0, tonumber(oldest[2]) + window - now)
end

if ARGV[1] == 'state' then
  return { 1, math.max(0, limit - count), until_oldest_leaves() }
end

if ARGV[1] == 'charge' then
  for i = 1, tonumber(ARGV[5]) do
    redis.call('ZADD', key, now, ARGV[4] .. ':' .. i)
  end
  redis.call('PEXPIRE', key, math.ceil(window / 1000) + 1)
  return { 1, math.max(0, limit - count - tonumber(ARGV[5])), until_oldest_leaves() }
end

if count >= limit then
  return { 0, 0, until_oldest_leaves() }
end
redis.call('ZADD', key, now, ARGV[4])
redis.call('PEXPIRE', key, math.ceil(window / 1000) + 1)
return { 1, limit - count - 1, until_oldest_leaves() }
