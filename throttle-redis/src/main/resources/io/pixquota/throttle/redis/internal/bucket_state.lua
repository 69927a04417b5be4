--[[
Reads a token bucket's state for display (the starter's /actuator/pixquota), changing nothing.

KEYS[1]  the bucket's hash (see token_bucket.lua for its fields)
Returns one string: Redis TIME in microseconds, then every field of the hash as "<field>=<value>", separated by
single spaces (no field or value of the hash holds a space or an "="); just the time when the key does not exist.
e.g. "1764540000123456 u=1764540000100000 e=1764539990000000 t:8.0:9.0=-2.5 c:8.0:9.0=1764540030100000"
]]
local t = redis.call('TIME')
local out = { t[1] .. string.format('%06d', tonumber(t[2])) }
local h = redis.call('HGETALL', KEYS[1])
for i = 1, #h, 2 do
  out[#out + 1] = h[i] .. '=' .. h[i + 1]
end
return table.concat(out, ' ')
