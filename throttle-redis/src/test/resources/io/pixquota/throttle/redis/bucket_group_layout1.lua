--[[
bucket_group.lua: token buckets of one limit each, decided together in one atomic step (a DICT lookup: the end
user's anti-scan bucket and the participant's buckets, all or nothing). Its Java twin is GroupStep; a differential
test runs both.

KEYS: the parts' keys, in ARGV[4]'s order (every key of a group carries the group's hash tag, so that one script
      reaches them all, in one slot of a Cluster); then the key of each credit ARGV[6] remembers, in its order.
      redeem: KEYS[1] is the credit's key.
ARGV[1] op: 'acquire' (gives, then every part or none, and the credits remembered) or 'redeem'
ARGV[2] the longest wait, in microseconds, that a waiting part's slot may be ahead
ARGV[3] the caller's clock in microseconds (tests), or '' for Redis's TIME
ARGV[4] parts: 'name capacity refill cost need w|n;...' (cost taken once the bucket holds need; w: a shortage is
        waited for; n: it refuses at once)
ARGV[5] gives: 'name r|l amount;...' (r: refund, up to capacity; l: lower to at most amount)
ARGV[6] credits: '' or 'ttlMillis;name capacity refill amount;...|...' (refunds made once, on redeem)
redeem: ARGV[4] is the keys' base ('<prefix>{<group>}:'), the buckets' keys being base .. 'b:' .. name; ARGV[5]
        the most one refund may give (a credit is read back from Redis: not trusted)

A bucket's key holds '<tokens> <updated micros>'; an absent key is a full bucket; a full bucket is deleted, and any
other lives until it would be full again (PX), so a million end users touched once leave nothing behind.

The math, for one part of capacity B and refill r per second, stored t at u, at time now:
  tokens = min(B, t + r (now - u) / 1e6); a part takes its cost c once tokens reach its need n (n <= c: DICT admits
  at 1 token and charges the answer after, into debt); a waiting part short of n waits ceil((n - tokens) / r x 1e6)
  us, booked ahead (tokens may go below zero); a non-waiting part short of n refuses the whole step, and says when it
  will have n. Example: B 100, r 2/60 per s, t -19.5 stored 30 s ago, n 1, c 20: tokens -18.5, refused, retry in
  585 s.

Distrust: a stored value that is not a number, is beyond capacity, or is dated more than 1 s ahead of the clock is
reset (a count beyond capacity: full; a time ahead: now) and counted in the reply.

Reply: 'granted wait refusedBy retry now repaired r1,r2,...' (refusedBy: the first refusing part, 1-based, 0 none;
remaining: each part's tokens after the step, %.17g). redeem: '1' when the credit was there, else '0'.
]]

local SLACK = 1000000

local op = ARGV[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
if ARGV[3] ~= '' then
  local client = tonumber(ARGV[3])
  if client < now then
    now = client -- a client clock ahead of Redis's cannot refill ahead of time
  end
end

local function read(key, capacity, refill)
  local v = redis.call('GET', key)
  if not v then
    return capacity, 0
  end
  local s, u = string.match(v, '^(%S+) (%S+)$')
  local tokens = tonumber(s)
  local updated = tonumber(u)
  local repaired = 0
  if tokens == nil or tokens ~= tokens or tokens == math.huge or tokens == -math.huge or tokens > capacity then
    tokens = capacity
    repaired = repaired + 1
  end
  if updated == nil or updated ~= updated or updated > now + SLACK then
    updated = now
    repaired = repaired + 1
  elseif updated > now then
    updated = now
  end
  return math.min(capacity, tokens + refill * (now - updated) / 1000000), repaired
end

local function write(key, capacity, refill, tokens)
  if tokens >= capacity then
    redis.call('DEL', key)
    return
  end
  local ttl = math.ceil((capacity - tokens) / refill * 1000) + 1
  redis.call('SET', key, string.format('%.17g %d', tokens, now), 'PX', string.format('%d', ttl))
end

local function parse(list, pattern)
  local out = {}
  for item in string.gmatch(list, '[^;]+') do
    local fields = { string.match(item, pattern) }
    if #fields == 0 then
      return nil
    end
    out[#out + 1] = fields
  end
  return out
end

if op == 'redeem' then
  local v = redis.call('GET', KEYS[1])
  if not v then
    return '0'
  end
  redis.call('DEL', KEYS[1])
  local most = tonumber(ARGV[5])
  for _, r in ipairs(parse(v, '^([%w._:-]+) (%S+) (%S+) (%S+)$') or {}) do
    local key = ARGV[4] .. 'b:' .. r[1]
    local capacity, refill, amount = tonumber(r[2]), tonumber(r[3]), tonumber(r[4])
    if capacity and refill and amount and capacity > 0 and refill > 0 and amount >= 0 then
      local tokens = read(key, capacity, refill)
      write(key, capacity, refill, math.min(capacity, tokens + math.min(amount, most)))
    end
  end
  return '1'
end
if op ~= 'acquire' then
  return redis.error_reply('unknown operation ' .. tostring(op))
end

local parts = parse(ARGV[4], '^(%S+) (%S+) (%S+) (%S+) (%S+) ([wn])$')
local gives = parse(ARGV[5], '^(%S+) ([rl]) (%S+)$')
if parts == nil or gives == nil then
  return redis.error_reply('bad parts or gives')
end
local max_wait = tonumber(ARGV[2])
local tokens = {}
local repaired = 0
for i, p in ipairs(parts) do
  p[2], p[3], p[4], p[5] = tonumber(p[2]), tonumber(p[3]), tonumber(p[4]), tonumber(p[5])
  local fixed
  tokens[i], fixed = read(KEYS[i], p[2], p[3])
  repaired = repaired + fixed
end
for _, g in ipairs(gives) do
  local amount = tonumber(g[3])
  for i, p in ipairs(parts) do
    if p[1] == g[1] then
      if g[2] == 'l' then
        tokens[i] = math.min(tokens[i], amount)
      else
        tokens[i] = math.min(p[2], tokens[i] + amount)
      end
    end
  end
end

local wait = 0
local retry = 0
local refused_by = 0
for i, p in ipairs(parts) do
  if p[4] > 0 and tokens[i] < p[5] then
    local w = math.ceil((p[5] - tokens[i]) / p[3] * 1000000)
    if p[6] == 'n' then
      if refused_by == 0 then
        refused_by = i
      end
      if w > retry then
        retry = w
      end
    elseif w > wait then
      wait = w
    end
  end
end
local granted = refused_by == 0 and wait <= max_wait
local writes = granted or #gives > 0 or repaired > 0 -- a plain refusal changes nothing
local remaining = {}
for i, p in ipairs(parts) do
  if granted then
    tokens[i] = tokens[i] - p[4]
  end
  remaining[i] = string.format('%.17g', tokens[i])
  if writes then
    write(KEYS[i], p[2], p[3], tokens[i])
  end
end
if ARGV[6] ~= '' then -- credits ride on the round trip, whatever its decision
  local c = #parts
  for credit in string.gmatch(ARGV[6], '[^|]+') do
    c = c + 1
    local ttl, refunds = string.match(credit, '^(%d+);(.*)$')
    redis.call('SET', KEYS[c], refunds, 'PX', ttl)
  end
end
return string.format('%d %d %d %d %d %d ', granted and 1 or 0, wait, refused_by, retry, now, repaired)
  .. table.concat(remaining, ',')
