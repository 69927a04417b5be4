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
ARGV[4] parts: 'name capacity refill cost need reserve w|n;...' (cost taken once the bucket holds need; reserve:
        what it must keep after need unless the standing covers it; w: a shortage is waited for; n: it refuses at
        once)
ARGV[5] gives: 'name r|l|e amount;...' (r: refund, up to capacity; l: lower to at most amount; e: add amount to the
        bucket's standing, within 0..capacity)
ARGV[6] credits: '' or 'ttlMillis;name capacity refill amount[ e];...|...' (made once, on redeem; e: an earning)
ARGV[7] how long a bucket that holds standing is kept after it was written, in milliseconds
ARGV[8] standing: '' or 'holder price' (the 1-based part whose standing may use the reserves, at price each step;
        price 0: the standing is only read)
redeem: ARGV[4] is the keys' base ('<prefix>{<group>}:'), the buckets' keys being base .. 'b:' .. name; ARGV[5]
        the most one refund may give (a credit is read back from Redis: not trusted); ARGV[7] as above

A bucket's key holds '<tokens> <updated micros>' or, with standing s > 0, '<tokens> <updated micros>.<s>': the
standing rides in the time's field as decimals, so that a release before standing (layout 1, whose pattern is
'^(%S+) (%S+)$' and reads the field with tonumber) reads a valid time (off by less than a microsecond) and drops the
standing when it writes, instead of taking the key for garbage and resetting it full. An absent key is a full bucket
without standing; a full bucket without standing is deleted, and any other lives until it would be full again (PX),
and at least ARGV[7] while it holds standing, so a million end users touched once leave nothing behind.

Reserves: a part of cost > 0 whose bucket would hold less than reserve + need refuses the whole step at once (it
never waits into a reserve), unless the holder's standing is at least the price: then the step uses the reserve,
and, granted, spends the price once (a concurrent second lookup of the same holder finds it spent).

The math, for one part of capacity B and refill r per second, stored t at u, at time now:
  tokens = min(B, t + r (now - u) / 1e6); a part takes its cost c once tokens reach its need n (n <= c: DICT admits
  at 1 token and charges the answer after, into debt); a waiting part short of n waits ceil((n - tokens) / r x 1e6)
  us, booked ahead (tokens may go below zero); a non-waiting part short of n refuses the whole step, and says when it
  will have n. Example: B 100, r 2/60 per s, t -19.5 stored 30 s ago, n 1, c 20: tokens -18.5, refused, retry in
  585 s.

Distrust: a stored value that is not a number, is beyond capacity or deeper in debt than any fleet can owe
(B (B + r * 86400) + r * 90000, as token_bucket.lua), or is dated more than 1 s ahead of the clock is reset (a count
out of range: full; a time ahead: now) and counted in the reply; a standing above capacity is reset to 0, counted; a
key of the wrong type (a list, a hash) is deleted and read as a full bucket (a credit's: as none), counted too.

Reply: 'granted wait refusedBy retry now repaired r1,r2,... byReserve waived standing' (refusedBy: the first
refusing part, 1-based, 0 none; retry: when every refusing part will have what it needs; remaining: each part's
tokens after the step, %.17g; byReserve 1 when refusedBy's reserve refused it; waived 1 when a reserve was used on
the standing; standing: the holder's after the step, -1 without ARGV[8]). redeem: '1' when the credit was there,
else '0'.
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

local STANDING_MILLIS = tonumber(ARGV[7]) or 0

-- tokens, repairs, standing
local function read(key, capacity, refill)
  local v = redis.pcall('GET', key)
  if type(v) == 'table' and v['err'] then
    redis.call('DEL', key) -- not a string (a list, a hash: an operator's, another program's): a full bucket instead
    return capacity, 1, 0
  end
  if not v then
    return capacity, 0, 0
  end
  local s, u = string.match(v, '^(%S+) (%S+)$')
  local tokens = tonumber(s)
  local standing = 0
  local repaired = 0
  local whole, decimals = string.match(u or '', '^(%d+)%.(%d+)$')
  if whole then
    u = whole
    standing = tonumber(decimals)
    if standing > capacity then
      standing = 0
      repaired = repaired + 1
    end
  end
  local updated = tonumber(u)
  if tokens == nil or tokens ~= tokens or tokens == math.huge or tokens == -math.huge or tokens > capacity
      or tokens < -(capacity * (capacity + refill * 86400) + refill * 90000) then
    tokens = capacity
    repaired = repaired + 1
  end
  if updated == nil or updated ~= updated or updated > now + SLACK then
    updated = now
    repaired = repaired + 1
  elseif updated > now then
    updated = now
  end
  return math.min(capacity, tokens + refill * (now - updated) / 1000000), repaired, standing
end

local function write(key, capacity, refill, tokens, standing)
  if tokens >= capacity and standing <= 0 then
    redis.call('DEL', key)
    return
  end
  local ttl = 0
  if tokens < capacity then
    ttl = math.ceil((capacity - tokens) / refill * 1000) + 1
  end
  if standing > 0 then
    ttl = math.max(ttl, STANDING_MILLIS, 1)
    redis.call('SET', key, string.format('%.17g %d.%d', math.min(tokens, capacity), now, standing), 'PX',
      string.format('%d', ttl))
  else
    redis.call('SET', key, string.format('%.17g %d', tokens, now), 'PX', string.format('%d', ttl))
  end
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
  local v = redis.pcall('GET', KEYS[1])
  if type(v) == 'table' and v['err'] then
    redis.call('DEL', KEYS[1]) -- not a credit: none
    return '0'
  end
  if not v then
    return '0'
  end
  redis.call('DEL', KEYS[1])
  local most = tonumber(ARGV[5])
  for item in string.gmatch(v, '[^;]+') do
    local name, c, r, a, e = string.match(item, '^([%w._:-]+) (%S+) (%S+) (%S+)( ?e?)$')
    local key = ARGV[4] .. 'b:' .. (name or '')
    local capacity, refill, amount = tonumber(c), tonumber(r), tonumber(a)
    if name and capacity and refill and amount and capacity > 0 and refill > 0 then
      local tokens, _, standing = read(key, capacity, refill)
      if e == ' e' and amount == math.floor(amount) then
        standing = math.max(0, math.min(math.floor(capacity), standing + math.max(-capacity, math.min(capacity,
          amount))))
        write(key, capacity, refill, tokens, standing)
      elseif e == '' and amount >= 0 then
        write(key, capacity, refill, math.min(capacity, tokens + math.min(amount, most)), standing)
      end
    end
  end
  return '1'
end
if op ~= 'acquire' then
  return redis.error_reply('unknown operation ' .. tostring(op))
end

local parts = parse(ARGV[4], '^(%S+) (%S+) (%S+) (%S+) (%S+) (%S+) ([wn])$')
local gives = parse(ARGV[5], '^(%S+) ([rle]) (%S+)$')
if parts == nil or gives == nil then
  return redis.error_reply('bad parts or gives')
end
local holder, price = string.match(ARGV[8] or '', '^(%d+) (%d+)$')
holder, price = tonumber(holder), tonumber(price)
local max_wait = tonumber(ARGV[2])
local tokens = {}
local standings = {}
local repaired = 0
for i, p in ipairs(parts) do
  p[2], p[3], p[4], p[5], p[6] = tonumber(p[2]), tonumber(p[3]), tonumber(p[4]), tonumber(p[5]), tonumber(p[6])
  local fixed
  tokens[i], fixed, standings[i] = read(KEYS[i], p[2], p[3])
  repaired = repaired + fixed
end
for _, g in ipairs(gives) do
  local amount = tonumber(g[3])
  for i, p in ipairs(parts) do
    if p[1] == g[1] then
      if g[2] == 'l' then
        tokens[i] = math.min(tokens[i], amount)
      elseif g[2] == 'r' then
        tokens[i] = math.min(p[2], tokens[i] + amount)
      else
        standings[i] = math.max(0, math.min(math.floor(p[2]), standings[i] + amount))
      end
    end
  end
end

local may_waive = holder ~= nil and price > 0 and standings[holder] >= price
local waived = false
local wait = 0
local retry = 0
local refused_by = 0
local by_reserve = false
for i, p in ipairs(parts) do
  local short_of_reserve = p[4] > 0 and p[6] > 0 and tokens[i] < p[6] + p[5]
  if short_of_reserve and may_waive then
    waived = true
  elseif short_of_reserve then
    if refused_by == 0 then
      refused_by = i
      by_reserve = true
    end
    retry = math.max(retry, math.ceil((p[6] + p[5] - tokens[i]) / p[3] * 1000000))
  end
  if not (short_of_reserve and not may_waive) and p[4] > 0 and tokens[i] < p[5] then
    local w = math.ceil((p[5] - tokens[i]) / p[3] * 1000000)
    if p[7] == 'n' then
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
waived = granted and waived
if waived then
  standings[holder] = standings[holder] - price
end
local writes = granted or #gives > 0 or repaired > 0 -- a plain refusal changes nothing
local remaining = {}
for i, p in ipairs(parts) do
  if granted then
    tokens[i] = tokens[i] - p[4]
  end
  remaining[i] = string.format('%.17g', tokens[i])
  if writes then
    write(KEYS[i], p[2], p[3], tokens[i], standings[i])
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
  .. table.concat(remaining, ',') .. string.format(' %d %d %d', by_reserve and 1 or 0, waived and 1 or 0,
  holder and standings[holder] or -1)
