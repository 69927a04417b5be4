--[[
Token bucket with reservations, shared by a fleet: refill, decide and record in one atomic step.
internal/BucketStep.java (with internal/StoredState.java) is the same step in Java, operation for operation (a
differential test runs both, corrupted fields included).

KEYS[1]  the bucket's hash, e.g. "pixquota:{pix}:tb". The hash tag {pix} keeps every key of one bucket in one
         Redis Cluster slot. Fields:
           u = updatedAt (microseconds, bucket clock); e = the state's epoch (Redis TIME in microseconds when this
               state was created: a new epoch means the old state was lost or expired);
           t:<capacity>:<refill> = tokens of that limit (a decimal string; may be negative: tokens already promised
               to callers who are waiting for their slot). Stored by what the limit is, not by its position;
           c:<configuration> = until when (microseconds) that configuration counts as live: a configuration is the
               sorted list of its limits, "<capacity>:<refill>,<capacity>:<refill>...";
           v = the layout version of the newest release that wrote the state ("2" since r: fields; a release reads
               every field it knows and leaves the others alone, so releases of layouts 1 and 2 share a bucket);
           r:<replica> = "<configuration>/<until>": which configuration that replica uses, and until when it counts
               as live (its c: field is the longest of these), so that a replica that closes can take its
               configuration out when no other live replica uses it;
           k = when the provider last refused a call booked under the current rate (microseconds, bucket clock),
               f = the rate factor right after that cut, p = the factor right before it, only when the cut was lone
               (no cut in the minute before it: the factor then climbs back to p within the lone recovery);
               w = the replica that made that cut; o = when another replica last asked for a slot since that cut;
               g = the rate's generation (Redis TIME in microseconds at that cut, always above the epoch and the
               previous one); h = no slot before this (microseconds, bucket clock), the provider's Retry-After (kept
               once over: when the last hold ended); j = "<previous generation>:<generation>:<at>:<factor before>:
               <factor after>:<held>:<hold>", the last change of generation (below: "cut"), reported to callers,
               never decided on;
           s:<flow> = "<tokens> <burst> <rate> <asked>": a flow's sub-bucket while shares decide (below), asked when
               it last asked (bucket clock; 0: not since the shares started); l:<replica> = the
               shares that replica runs (its ARGV[2]'s last value), for as long as its r: field is live.
         A field is written only when its value changes (u and the tokens at every call).
Two ARGV, each of values separated by single spaces (every argument costs the client and Redis to encode and read):
ARGV[1]  the call: "<operation> <cost> <micros> <clock> <generation>", and " <flow>" when ARGV[2] has shares
  operation  "acquire" | "charge" | "refund" | "cut" | "close"
  cost       a decimal > 0 (validated by the caller: 0 < cost <= capacity of every limit, and at most 1e12)
  micros     acquire: the longest wait the caller accepts, whole microseconds (>= 0); cut: how long the provider
             asked to wait (Retry-After), whole microseconds (>= 0; 0 when it did not say); others: 0
  clock      empty to use the Redis clock (TIME), or the caller's clock in microseconds (client-clock mode)
  generation cut: the rate generation the refused call was booked under; others: empty
  flow       the service the call is for (a flow the shares do not name is "*"'s)
  e.g. "acquire 1 0  " (an acquire that waits for nothing, on Redis's clock)
ARGV[2]  the caller's settings, fixed for a bucket (validated by the caller; the common path, below, reads the first
         four): "<replica> <configuration> <lease> <longest lease> <decrease> <increase> <floor> <hold> <recovery>"
  replica        this process's id for the bucket (letters and digits, at most 32);
  configuration  the caller's limits, checked and charged together (e.g. 10/s and 600/min), each
                 "<capacity>:<refill per second>" as the caller formats them (capacity <= 1e12, 1e-6 <= refill <=
                 1e12), sorted as strings and joined by ",";
  lease          the configuration lease, whole microseconds (0 < lease <= the longest lease);
  longest lease  the longest lease the caller believes of any configuration, whole microseconds (<= 300 s; 30 s by
                 default): a configuration whose replica died (kill -9) stops counting within it;
  the rate adaptation: decrease (0 < beta < 1), increase per second (alpha > 0, a fraction of the configured rates),
                 floor (0 < floor <= 1), the longest hold one refusal may impose (whole microseconds, <= 1 h), the
                 lone recovery (whole microseconds, 0: none).
  shares (optional) the flows that share the bucket and each one's weight, "<flow>=<weight>" sorted by flow and
                 joined by ",", "*" (the flows not named) among them; weights >= 0, one above 0 at least; the
                 configuration of one limit whose capacity holds one call per flow (validated by the caller)
  e.g. "k3x9a1 10.0:10.0,600.0:10.0 30000000 30000000 0.85 0.005 0.25 15000000 5000000"
  (Releases before this script's common path sent six ARGV, in another order; the state's layout is the same.)

Returns one string, values separated by single spaces:
  done   acquire: 1 if granted, else 0; cut: 1 if the rate was cut, 0 if the refused call was booked before the last
         cut (its news is old), 2 if not counted (this replica made the last cut and others asked for slots since:
         one replica's evidence is bounded); charge, refund, close: 1
  wait   in whole microseconds (rounded up, at most 2^53 - 1) until the caller's booked slot; for a refusal, the
         wait it would have needed; 0 for the other operations
  tokens left after the operation, the smallest over the limits in force (negative = booked ahead)
  now    the bucket clock in microseconds at which the decision was taken (slot = now + wait)
  epoch  the state's epoch
and, unless the rate was never cut, no hold was ever set, no other configuration is live and nothing was repaired
(then they are the epoch, 1, 0, 1, "-" and ""):
  generation      the rate generation now (g, or the epoch when never cut)
  factor          the rate factor now (1 = the configured rates)
  hold            no slot before this (microseconds)
  configurations  how many configurations are live, this one included
  repaired        the fields this step could not trust and reset, joined by "," ("-" when none)
  change          the last change of generation, j ("-" when none is known)
  others          the other live configurations, separated by ";" (empty when none)
and, when shares decided (the reply is then always this long):
  flow            the flow whose tokens the step took: the caller's own, or the one it borrowed from

Nothing read is trusted (another replica, an operator, a failover or a bug may have written it): a value that is not
a finite number of its range (a whole one of 0 .. 2^53 - 1 for times and counts) is reset and named in `repaired`, so
that the state heals by itself; a key that is not a hash at all (a string, a list) is deleted and named "type":
  e not a whole number in 0 .. 2^53 - 1 (an id, not a time: after a failover to a node whose clock is behind it is
    ahead of the clock, and that is fine): the whole state is new (fresh epoch);
  u not a number: no refill this step (u = now); u more than 1 s ahead of Redis's clock (a clock that went back,
    or a value from nowhere): the same, instead of giving no refill until the clock catches up;
  t:... not a number, or deeper in debt than any fleet can owe: B (B + r * 86400) + r * 90000 (a day of calls
    booked ahead, each charged at most B more by its answer, and a day and an hour of refill booked or held): the
    limit starts as busy as the busiest one (as a limit new to the state);
  c:... whose name is not a list of valid limits, or whose lease is not a number: deleted; a lease further from now
    than the longest the caller believes (the fleet's bound, whatever its replica asked): cut to it;
  r:... not "<a valid configuration>/<a whole number>": deleted; past its time: deleted; further than the longest
    lease the caller believes: cut to it;
  k, f, p not numbers or factors outside (0, 1]: the rate is back to the configured one (never cut);
  g not a whole number between the epoch and 2^53 - 1 (above it, g + 1 is g again and a cut could not start a new
    generation): a new generation (now);
  h not a number, or further than 1 h from now: no hold; a hold further than the caller's longest hold is cut to it.

One configuration in force: the limits in force are those of every live configuration (the caller's, and every
other used within its lease), so a call must fit each of them and is charged on each: the fleet is held to the
strictest setting in use, limit by limit. A limit that is new to a state starts as busy as the busiest limit kept
(as long until full), not full. Configurations past their lease, and limits no live configuration has, are deleted.
A call renews its replica's lease (its r: field, to now + lease) only when less than 7/8 of it is left (or more than
the whole of it: a longer lease written before), or when its configuration's c: field is missing, shorter than it, or
further than the longest lease; a renewal lifts the c: field to the replica's new lease if it was shorter (c: is the
longest lease of the configuration's replicas). So a configuration stays live for between 7/8 of its lease and its
lease after its last call, and replicas of one configuration renew each at its own pace, not every time another one
has. (Releases before the common path renewed whenever c: and their r: field differed: with them in the fleet, they
renew at every call, as they did; the fields mean the same.) close (a replica that makes no more calls) deletes its r: field, and its
configuration's c: field unless another live replica's r: field names the same configuration; it changes no tokens.

Rate adaptation (AIMD on the factor f, 0 < floor <= f <= 1, applied to every refill of the limits in force):
  f(t) = min(1, max(floor, f_cut + alpha * (t - k) / 1e6)), and 1 when never cut; after a lone cut, f climbs
  linearly from f_cut back to p within the lone recovery L, then on at alpha: f(t) = f_cut + (p - f_cut) (t - k) / L
  while t - k < L, else p + alpha (t - k - L) / 1e6 (same bounds). A cut is lone when no cut came in the 60 s
  before it: one 429 at a cold start costs seconds, while a provider that keeps refusing meets the slow climb.
  cut, for a call booked under the current generation (news): f_cut = max(floor, beta * f(now)); k = now; w = the
  caller's replica. For news, or for older news whose Retry-After (cut to the caller's longest hold) ends later than
  h: a new generation g, h = max(h, now + Retry-After), and with held = max(the hold before, now) and hold =
  max(h, held), every limit's tokens = min(tokens, 0) - refill * f * (hold - held) / 1e6 (none left when the
  provider accepts again: the provider said it is empty; the tokens of a hold already in force are in the debt
  since it was set; the slots booked ahead stay booked, in their order), j = "<the generation before>:<g>:<now>:
  <f before>:<f after>:<held>:<hold>", and "<epoch>:<g>" is published on KEYS[1] .. ":fleet", so that every
  process hears of it at once (as a hint: a process believes only what a reply of this script confirms). A caller
  waiting for a slot s booked under the generation before moves it, without asking again, to max(hold, now +
  (hold - held) + (s - now) * before / after): every call booked then was booked at a factor of at most `before`,
  so the tokens it still needed at `now` are at most refill * before * (s - now), which the new rate, climbing from
  `after`, refills within (s - now) * before / after once the added hold is paid (a slot that had come by `now`,
  s <= now, books again). So a moved slot is never earlier than the state would give it. A report by the replica that
  made the last cut, when another replica has asked for a slot since that cut (o > k) and reported nothing, is not
  counted (done 2: no cut, no hold): one replica behind a broken gateway cannot take the fleet down alone, while a
  replica alone still adapts, and a real shortage reaches every replica.

The common path: a call (acquire, charge, refund) on a state of this layout with no field but u, e, v, the caller's
configuration's c: field, r: fields naming that configuration, and its one limit's t: field, never cut or held, whose
lease needs no renewal, reads those values, checks each against the same bounds as below, and decides with the math
below at a factor of 1: no table of the whole hash, no repair list, no settings parsed. Any value out of its bounds, any
other field, a configuration of several limits, or a cut or close sends the call down the full path instead, which
gives the same answer on the same state; ScriptAndJavaStepAgreeTest runs both against the Java step. With shares,
the common path also reads the plan's sub-buckets (s:) and every live replica's plan (l:): when they are exactly the
plan's flows, within their bounds and adding up to no more than the limit holds, and every live replica runs the
caller's plan, it takes the shares' step below at a factor of 1 (shares_common); else the full path.

Shares (Linux HTB's guaranteed rate and borrowing, docs/architecture.md): a bucket of one limit (B, r)
is one sub-bucket per flow, flow f of weight w (of the weights' sum W) refilling at g = r w / W up to its burst
b = 1 + (B - n) w / W (n flows: one call each, the rest by weight; the bursts add up to B, the rates to r). They
decide only while every live replica of the bucket runs the same shares on one configuration of one limit (the
caller's); then:
  - the stored sub-buckets, refilled as the limits are (at f(last)), are used when they are the plan's (the same
    flows, bursts and rates) and add up to no more than the limit's tokens (+ 1e-9 B); else each flow gets the
    limit's tokens times b / B. The limit's tokens are the sub-buckets' sum after every step.
  - acquire c of flow a: its own sub-bucket holds c: granted now. Else another flow's holds c beyond what it keeps for
    its own callers (min(c, b - c) while that flow asked within the last three slots of its rate, 3 / g s; else
    nothing): it borrows c of it now (the fullest by tokens over burst, the first in the order of names of equals). Else it books on its own sub-bucket, wait = (c - tokens) / (g f(now)) (a flow of
    weight 0 only borrows: its wait is endless, it is refused). Never before the hold; beyond the max wait, refused
    as any acquire is. The sub-bucket that gives is charged as a limit is (min(tokens, b - g f wait) - c). A token
    is lent only when it is there, never ahead: a flow that storms books ahead on its own rate alone, and cannot take
    the slots another flow's guarantee needs.
  - refund c: min(b, tokens + c) of the caller's own flow; charge c: its tokens - c; cut: each sub-bucket
    min(tokens, 0) - (g f) (h - now), as the limit.
A step that finds sub-buckets while the shares do not decide (another configuration or plan live, a replica of an
older release, a close) folds them into every limit in force (tokens = min(tokens, capacity * sum / bursts' sum))
and drops them: what the flows booked ahead stays booked. Every call takes a token of one sub-bucket at or after it
held it, so the bucket's bound (B + r T in any T) holds; a flow asking no faster than g, evenly, finds its own call
at once when b holds two calls (while it asks, none may lend its last call away), else within one slot of g; a
flow that stopped asking lends all it holds, so one flow alone borrows the whole bucket.

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
  when the key's PTTL is shorter, and then gives it a quarter more (TTL + floor(TTL / 4), at most 1e13 ms), so that
  a busy bucket pays a PEXPIRE once in a while, not at every call. Every value written is computed first, and
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
local LAYOUT = '2' -- this script's layout version, written as v
local AHEAD = 86400 -- s: the longest a caller may book ahead (a day)
local OWED = 90000 -- s: a day of booking ahead and an hour of hold
local MAX_HOLD = 3600000000 -- 1 h: a stored hold further than this is not a hold but garbage
local SLACK = 1000000 -- 1 s: how far a stored time may be ahead of Redis's clock before it is not believed
local LONE = 60000000 -- 60 s: a cut with no cut this long before it is lone
local TALLY = 1000 -- the most calls and reports of the last cut's maker counted since its cut

local key = KEYS[1]
local op, cost, arg_micros, clock, booked, flow = string.match(ARGV[1], '^(%l+) (%S+) (%S+) (%S*) (%S*) ?(%S*)$')
cost, arg_micros = tonumber(cost), tonumber(arg_micros)
local me, my_id, lease, max_lease, adaptation = string.match(ARGV[2], '^(%w+) (%S+) (%S+) (%S+) ()')
lease, max_lease = tonumber(lease), tonumber(max_lease)
if op ~= 'acquire' and op ~= 'charge' and op ~= 'refund' and op ~= 'cut' and op ~= 'close' or cost == nil
    or arg_micros == nil then
  return redis.error_reply('bad call ' .. tostring(ARGV[1]))
end
if my_id == nil or lease == nil or max_lease == nil then
  return redis.error_reply('bad settings ' .. tostring(ARGV[2]))
end

local t = redis.call('TIME')
local redis_now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = redis_now
if clock ~= '' then
  now = tonumber(clock)
  if now > redis_now then
    now = redis_now -- a client clock ahead of Redis's cannot refill ahead of time
  end
end

local flat = redis.pcall('HGETALL', key)
local my_field = 'c:' .. my_id
local my_replica = 'r:' .. me

-- The common path with shares (below): the stored sub-buckets are the plan's (its flows, bursts and rates), each
-- value within the full path's bounds, and they add up to no more than the limit holds; then the full path's shares
-- step at a factor of 1 with no hold, operation for operation. Returns nil, having written nothing, when the state is
-- not so: the full path then decides (and repairs, or shares the tokens out again).
local function shares_common(plan, subs, n_subs, capacity, refill, had, u, at, e, mine, my_tokens)
  local fl, wt, total = {}, {}, 0
  for name, weight in string.gmatch(plan, '([^=,]+)=([^=,]+)') do
    fl[#fl + 1] = name
    wt[#wt + 1] = tonumber(weight)
    total = total + tonumber(weight)
  end
  local n = #fl
  if n_subs ~= n then
    return nil
  end
  local bu, ra, tk, asked, asker, star = {}, {}, {}, {}, nil, nil
  local kept = {} -- each stored value's burst and rate as written, " <burst> <rate> ": they are the plan's
  local asked_text = {}
  local sum = 0
  for i = 1, n do
    bu[i] = 1 + (capacity - n) * wt[i] / total
    ra[i] = refill * wt[i] / total
    if fl[i] == flow then
      asker = i
    elseif fl[i] == '*' then
      star = i
    end
    local stored = subs[fl[i]]
    if stored == nil then
      return nil
    end
    local s_tk, from_bu, s_bu, s_ra, to_at, s_at = string.match(stored, '^(%S+)() (%S+) (%S+) ()(%S+)$')
    if s_at == nil then
      return nil
    end
    kept[i] = string.sub(stored, from_bu, to_at - 1)
    asked_text[i] = s_at
    s_tk, s_bu, s_ra, s_at = tonumber(s_tk), tonumber(s_bu), tonumber(s_ra), tonumber(s_at)
    -- as the full path's finite() and whole() read them; a NaN fails every comparison
    if s_tk == nil or s_bu == nil or s_ra == nil or s_at == nil or s_bu ~= bu[i] or s_ra ~= ra[i]
        or not (s_bu > 0 and s_bu <= 1e12 and s_ra >= 0 and s_ra <= 1e12 and s_tk <= s_bu)
        or not (s_tk >= -(s_bu * (s_bu + s_ra * AHEAD) + s_ra * OWED))
        or not (s_at >= 0 and s_at <= MAX_WAIT and s_at == math.floor(s_at) and s_at <= redis_now + SLACK) then
      return nil
    end
    tk[i] = math.min(s_bu, s_tk + s_ra * (at - u) / 1000000)
    asked[i] = s_at
    sum = sum + tk[i]
  end
  asker = asker or star
  if asker == nil or sum > math.min(capacity, had + refill * (at - u) / 1000000) + 1e-9 * capacity then
    return nil
  end
  local from = asker
  local wait = 0
  if op == 'acquire' then
    if tk[asker] < cost then
      local fullest = -1
      for i = 1, n do
        local part = tk[i] / bu[i]
        local keeps = 0
        if ra[i] > 0 and asked[i] > 0 and at - asked[i] <= 3000000 / ra[i] then
          keeps = math.min(cost, bu[i] - cost)
        end
        if i ~= asker and tk[i] - cost >= keeps and part > fullest then
          from = i
          fullest = part
        end
      end
      if from == asker then
        wait = (cost - tk[asker]) / ra[asker] * 1000000
      end
    end
    wait = math.min(math.ceil(wait), MAX_WAIT)
  end
  local at_text, e_text = string.format('%d', at), string.format('%d', e)
  local function answer(done, tokens_text)
    return done .. ' ' .. string.format('%d', wait) .. ' ' .. tokens_text .. ' ' .. at_text .. ' ' .. e_text .. ' '
      .. e_text .. ' 1 0 1 - -  ' .. fl[from]
  end
  if op == 'acquire' and wait > arg_micros then
    return answer(0, string.format('%.17g', sum)) -- refused: nothing to record
  end
  if op == 'acquire' then
    tk[from] = math.min(tk[from], bu[from] - ra[from] * wait / 1000000) - cost
    asked[asker] = at
    asked_text[asker] = at_text
  elseif op == 'refund' then
    tk[asker] = math.min(bu[asker], tk[asker] + cost)
  else
    tk[asker] = tk[asker] - cost
  end
  local tokens = 0
  for i = 1, n do
    tokens = tokens + tk[i]
  end
  local tokens_text = string.format('%.17g', tokens)
  local hset = { 'u', at_text, my_tokens, tokens_text }
  local ttl = (capacity - tokens) / refill * 1000
  for i = 1, n do
    hset[#hset + 1] = 's:' .. fl[i]
    hset[#hset + 1] = string.format('%.17g', tk[i]) .. kept[i] .. asked_text[i]
    local to_full = ra[i] > 0 and (bu[i] - tk[i]) / ra[i] * 1000 or 0
    if to_full > ttl then
      ttl = to_full
    end
  end
  if (mine - at) / 1000 > ttl then
    ttl = (mine - at) / 1000
  end
  ttl = math.min(math.ceil(ttl + math.max(0, at - redis_now) / 1000) + 1, MAX_TTL)
  local expire = redis.call('PTTL', key) < ttl
  redis.call('HSET', key, unpack(hset))
  if expire then
    redis.call('PEXPIRE', key, string.format('%d', math.min(ttl + math.floor(ttl / 4), MAX_TTL)))
  end
  return answer(1, tokens_text)
end

-- The common path: a state of this layout that nothing has touched, never cut or held, where no configuration but the
-- caller's is live (other replicas of it may be), that configuration of one limit, its lease needing no renewal.
-- Every value the decision uses is read and checked as the full path checks it (the same bounds, below); the first
-- that is not as expected, or any other field, sends the call down the full path, which repairs, renews and deletes.
-- The answer and the state written are the full path's, operation for operation (the differential test runs both).
if (op == 'acquire' or op == 'charge' or op == 'refund') and flat['err'] == nil and #flat > 0 then
  local common = true
  local my_tokens = 't:' .. my_id
  local u, e, v, mine, my_r, had
  local others = false
  local shared = flow ~= '' -- the caller runs shares: its flows' s: fields and the replicas' l: fields are read too
  local subs, plans, n_subs, n_plans = {}, {}, 0, 0
  for i = 1, #flat, 2 do
    local field = flat[i]
    if field == 'u' then
      u = flat[i + 1]
    elseif field == 'e' then
      e = flat[i + 1]
    elseif field == 'v' then
      v = flat[i + 1]
    elseif field == my_tokens then
      had = flat[i + 1]
    elseif field == my_field then
      mine = flat[i + 1]
    elseif field == my_replica then
      my_r = flat[i + 1]
    elseif string.byte(field, 1) == 114 and string.byte(field, 2) == 58 then -- 'r:', another replica: below
      others = true
    elseif shared and string.byte(field, 1) == 115 and string.byte(field, 2) == 58 then -- 's:', a flow's tokens
      subs[string.sub(field, 3)] = flat[i + 1]
      n_subs = n_subs + 1
    elseif shared and string.byte(field, 1) == 108 and string.byte(field, 2) == 58 then -- 'l:', a replica's shares
      plans[string.sub(field, 3)] = flat[i + 1]
      n_plans = n_plans + 1
    else
      common = false -- a cut, a hold, another configuration, a field of an older layout...
      break
    end
  end
  local capacity, refill = string.match(my_id, '^([^:,]+):([^:,]+)$')
  capacity, refill = tonumber(capacity), tonumber(refill)
  u, e, mine, had = tonumber(u), tonumber(e), tonumber(mine), tonumber(had)
  -- each as whole() and finite() check it; a NaN fails every comparison
  if common and v == LAYOUT and e ~= nil and e >= 0 and e <= MAX_WAIT and e == math.floor(e)
      and u ~= nil and u >= 0 and u <= redis_now + SLACK and u == math.floor(u)
      and capacity ~= nil and refill ~= nil and capacity > 0 and capacity <= 1e12 and refill >= 1e-6 and refill <= 1e12
      and had ~= nil and had < math.huge and had >= -(capacity * (capacity + refill * AHEAD) + refill * OWED) then
    local at = now
    if u > at then
      at = u
    end
    -- this replica's lease needs no renewal, and the configuration's covers it
    local prefix = my_id .. '/'
    local own = my_r ~= nil and string.sub(my_r, 1, #prefix) == prefix and tonumber(string.sub(my_r, #prefix + 1))
    common = own and own - at >= lease * 0.875 and own <= at + lease and own == math.floor(own) and mine ~= nil
      and mine >= own and mine <= at + max_lease and mine == math.floor(mine)
    local plan = shared and string.match(ARGV[2], '^%S+ %S+ %S+ %S+ %S+ ?(%S*)$', adaptation)
    -- with shares, every live replica runs this one's plan (its l: field), and no l: field is a dead replica's
    common = common and (not shared or plan and plan ~= '' and plans[me] == plan)
    local live_others = 0
    if common and others then
      -- every other replica's field names this configuration, live and within the fleet's longest lease
      for i = 1, #flat, 2 do
        local field = flat[i]
        if field ~= my_replica and string.byte(field, 1) == 114 then
          local value = flat[i + 1]
          local ends = string.sub(value, 1, #prefix) == prefix and tonumber(string.sub(value, #prefix + 1))
          if not ends or not (ends >= at and ends <= at + max_lease and ends == math.floor(ends))
              or string.find(value, '/', #prefix + 1, true) or shared and plans[string.sub(field, 3)] ~= plan then
            common = false
            break
          end
          live_others = live_others + 1
        end
      end
    end
    if common and shared then
      if n_plans ~= live_others + 1 then
        common = false
      else
        local answer = shares_common(plan, subs, n_subs, capacity, refill, had, u, at, e, mine, my_tokens)
        if answer ~= nil then
          return answer
        end
        common = false
      end
    end
    if common then
      local tokens = math.min(capacity, had + refill * (at - u) / 1000000)
      local wait = 0
      if op == 'acquire' then
        if tokens < cost then
          wait = math.min(math.ceil((cost - tokens) / refill * 1000000), MAX_WAIT)
        end
        if wait > arg_micros then
          return string.format('0 %d %.17g %d %d', wait, tokens, at, e) -- refused: nothing to record
        end
        tokens = math.min(tokens, capacity - refill * wait / 1000000) - cost
      elseif op == 'refund' then
        tokens = math.min(capacity, tokens + cost)
      else
        tokens = tokens - cost
      end
      local ttl = 0
      if (capacity - tokens) / refill * 1000 > ttl then
        ttl = (capacity - tokens) / refill * 1000
      end
      if (mine - at) / 1000 > ttl then
        ttl = (mine - at) / 1000
      end
      ttl = math.min(math.ceil(ttl + math.max(0, at - redis_now) / 1000) + 1, MAX_TTL)
      local expire = redis.call('PTTL', key) < ttl
      local at_text, tokens_text = string.format('%d', at), string.format('%.17g', tokens)
      redis.call('HSET', key, 'u', at_text, my_tokens, tokens_text)
      if expire then
        redis.call('PEXPIRE', key, string.format('%d', math.min(ttl + math.floor(ttl / 4), MAX_TTL)))
      end
      return '1 ' .. string.format('%d', wait) .. ' ' .. tokens_text .. ' ' .. at_text .. ' ' .. string.format('%d', e)
    end
  end
end

-- A number read from the hash, or nil: Redis's Lua reads "nan" and "inf" as numbers, which no comparison can catch.
local function finite(s)
  local v = tonumber(s)
  if v == nil or v ~= v or v == math.huge or v == -math.huge then
    return nil
  end
  return v
end
-- A whole number of 0 .. 2^53 - 1, as every time and count stored is; nil for anything else (-1e300 is whole too).
local function whole(s)
  local v = finite(s)
  if v == nil or v ~= math.floor(v) or v < 0 or v > MAX_WAIT then
    return nil
  end
  return v
end
-- A configuration's name is a list of limits, each within what a caller may configure; anything else is not one.
local function valid_id(id)
  local n = 0
  local rebuilt = {}
  for c, r in string.gmatch(id, '([^:,]+):([^:,]+)') do
    local cv = finite(c)
    local rv = finite(r)
    if cv == nil or rv == nil or cv <= 0 or cv > 1e12 or rv < 1e-6 or rv > 1e12 then
      return false
    end
    n = n + 1
    rebuilt[n] = c .. ':' .. r
  end
  return n > 0 and n <= 16 and table.concat(rebuilt, ',') == id
end

local wrong_type = flat['err'] ~= nil
if wrong_type then
  if not string.find(flat['err'], 'WRONGTYPE', 1, true) then
    return flat -- an error of Redis's own: the caller reports it
  end
  redis.call('DEL', key) -- a string, a list...: not a bucket; a new state instead of failing every call for ever
  flat = {}
end
local booked_gen = tonumber(booked)
local beta, alpha, floor, max_hold, lone_us, plan = string.match(ARGV[2], '^(%S+) (%S+) (%S+) (%S+) (%S+) ?(%S*)$',
  adaptation)
beta, alpha, floor, max_hold, lone_us = tonumber(beta), tonumber(alpha), tonumber(floor), tonumber(max_hold),
  tonumber(lone_us)
if beta == nil or alpha == nil or floor == nil or max_hold == nil or lone_us == nil then
  return redis.error_reply('bad settings ' .. ARGV[2])
end
local h = {}
for i = 1, #flat, 2 do
  h[flat[i]] = flat[i + 1]
end
if op == 'close' and #flat == 0 then
  return '1' -- nothing to take out of a state that is gone: none is made for it
end

local repaired = {}
local seen = {}
local dead = {}
local hset = {}
local function repair(field)
  if not seen[field] then
    seen[field] = true
    repaired[#repaired + 1] = field
  end
end
if wrong_type then
  repair('type')
end

local e = whole(h['e'])
local fresh = next(h) == nil
if not fresh and (e == nil or e < 0 or e > MAX_WAIT) then
  repair('e') -- the state cannot be told apart from another: a new one
  fresh = true
end
local last = nil
local epoch
if fresh then
  h = {} -- a new state: whoever booked in an older one must not rely on it
  epoch = string.format('%d', redis_now)
else
  epoch = string.format('%d', e)
  last = whole(h['u'])
  if last == nil or last > redis_now + SLACK then
    repair('u') -- unreadable, or a clock that went back: no refill across it, rather than none until it catches up
    last = now
  elseif last > now then
    now = last
  end
end

local k = whole(h['k'])
local f_cut = finite(h['f'])
local p = finite(h['p'])
local w = h['w']
local a = whole(h['a'])
local q = whole(h['q'])
local o = whole(h['o'])
if (h['k'] ~= nil or h['f'] ~= nil) and (k == nil or f_cut == nil or f_cut <= 0 or f_cut > 1) then
  repair('f') -- a cut that cannot be read: the configured rate
  k = nil
  f_cut = nil
  dead[#dead + 1] = 'k'
  dead[#dead + 1] = 'f'
end
if k ~= nil and k > now then
  k = now -- a cut stamped by a clock that went back
end
if h['p'] ~= nil and (k == nil or p == nil or p <= 0 or p > 1) then
  if k ~= nil then
    repair('p')
  end
  p = nil
  dead[#dead + 1] = 'p'
end
if h['o'] ~= nil and o == nil then
  repair('o')
  dead[#dead + 1] = 'o'
end
if w ~= nil and (k == nil or not string.match(w, '^[%w]+$') or #w > 32) then
  if k ~= nil then
    repair('w')
  end
  w = nil
  dead[#dead + 1] = 'w'
end
if h['a'] ~= nil and (w == nil or a == nil or a < 0 or a > TALLY) then
  if w ~= nil then
    repair('a')
  end
  a = nil
  dead[#dead + 1] = 'a'
end
if h['q'] ~= nil and (w == nil or q == nil or q < 0 or q > TALLY) then
  if w ~= nil then
    repair('q')
  end
  q = nil
  dead[#dead + 1] = 'q'
end
local g = whole(h['g'])
local published = false
local g_written = false
if h['g'] ~= nil and (g == nil or g < tonumber(epoch) or g > MAX_WAIT) then
  repair('g')
  g = math.max(redis_now, tonumber(epoch) + 1) -- a generation nobody has seen: slots of the unreadable one book again
  g_written = true
end
-- The last change of generation (j), as the processes of the calls waiting then move their slots by it; reported,
-- never read to decide. One of another generation (a release that does not write it made a cut since) is dropped.
local j = nil
if h['j'] ~= nil then
  local jp, jg, ja, jb, jf, jd, jh = string.match(h['j'], '^(%d+):(%d+):(%d+):([^:]+):([^:]+):(%d+):(%d+)$')
  if jp ~= nil then
    jp, jg, ja, jb, jf, jd, jh = whole(jp), whole(jg), whole(ja), finite(jb), finite(jf), whole(jd), whole(jh)
  end
  if jp == nil or jg == nil or ja == nil or jb == nil or jf == nil or jd == nil or jh == nil or jp >= jg
      or jb <= 0 or jb > 1 or jf <= 0 or jf > 1 or jd < ja or jh < jd then
    repair('j')
    dead[#dead + 1] = 'j'
  elseif g == nil or g_written or jg ~= g then
    dead[#dead + 1] = 'j'
  else
    j = h['j']
  end
end
local hold = 0
if h['h'] ~= nil then
  hold = whole(h['h'])
  if hold == nil or hold > now + MAX_HOLD then
    repair('h')
    hold = 0
    dead[#dead + 1] = 'h'
  elseif hold > now + max_hold then
    hold = now + max_hold -- the strictest bound of the fleet's replicas on a provider's hold
    if hold > now then
      hset[#hset + 1] = 'h'
      hset[#hset + 1] = string.format('%d', hold)
    end
  end
end
if h['x'] ~= nil then
  dead[#dead + 1] = 'x' -- an older version's record of the expiry (PTTL is read instead)
end

local function factor(at)
  if k == nil then
    return 1
  end
  local v
  if p ~= nil and lone_us > 0 and at - k < lone_us then
    v = f_cut + (p - f_cut) * (at - k) / lone_us
  elseif p ~= nil and lone_us > 0 then
    v = p + alpha * (at - k - lone_us) / 1000000
  else
    v = f_cut + alpha * (at - k) / 1000000
  end
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
local stored_limits = {}
local users = {} -- configuration -> true, for every other live replica's r: field
local live = {} -- replica -> true, for every other live replica's r: field
local sub_fields, plan_fields = {}, {} -- s: and l: fields (shares)
local bad_c, bad_r = false, false -- named after the pass, c then r: the order of pairs() is Redis's own
for field, value in pairs(h) do
  if string.byte(field, 2) == 58 then -- ':'
    local first = string.byte(field, 1)
    if first == 116 then -- 't'
      stored_limits[#stored_limits + 1] = field
    elseif first == 99 and field ~= my_field then -- 'c', another configuration
      local ends = whole(value)
      local id = string.sub(field, 3)
      if ends == nil or not valid_id(id) then
        bad_c = true
        dead[#dead + 1] = field
      elseif ends >= now then
        if ends > now + max_lease then
          bad_c = true -- a lease longer than the fleet allows, whoever asked for it
          ends = now + max_lease
          hset[#hset + 1] = field
          hset[#hset + 1] = string.format('%d', ends)
        end
        leases[id] = ends
        ids[#ids + 1] = id
      else
        dead[#dead + 1] = field
      end
    elseif first == 114 and field ~= my_replica then -- 'r', another replica
      local id, ends = string.match(value, '^([^/]+)/([^/]+)$')
      ends = whole(ends)
      if ends == nil or not valid_id(id) then
        bad_r = true
        dead[#dead + 1] = field
      elseif ends >= now then
        if ends > now + max_lease then
          bad_r = true
          hset[#hset + 1] = field
          hset[#hset + 1] = id .. '/' .. string.format('%d', now + max_lease)
        end
        users[id] = true
        live[string.sub(field, 3)] = true
      else
        dead[#dead + 1] = field
      end
    elseif first == 115 then -- 's', a flow's sub-bucket
      sub_fields[#sub_fields + 1] = field
    elseif first == 108 then -- 'l', a replica's shares
      plan_fields[#plan_fields + 1] = field
    end
  end
end
if bad_c then
  repair('c')
end
if bad_r then
  repair('r')
end
if #ids > 1 then
  table.sort(ids)
end
-- The configuration's lease (c:, the longest of its replicas') and this replica's (r:): a replica renews its own
-- when less than 7/8 of it is left (or more than the whole of it), and lifts the configuration's to it.
local my_lease = whole(h[my_field])
if my_lease ~= nil and my_lease > now + max_lease then
  my_lease = nil -- longer than the fleet allows: this replica's renewal sets it
end
local my_own = h[my_replica]
if my_own ~= nil and string.sub(my_own, 1, #my_id + 1) == my_id .. '/' then
  my_own = whole(string.sub(my_own, #my_id + 2))
else
  my_own = nil
end
local renewed = my_own == nil or my_lease == nil or my_own - now < lease * 0.875 or my_own > now + lease
  or my_lease < my_own
local closing = op == 'close'
if closing then
  renewed = false
  dead[#dead + 1] = my_replica
  if not users[my_id] then
    dead[#dead + 1] = my_field -- no other live replica uses it: it stops counting now
  end
elseif renewed then
  my_own = now + lease
  if my_lease == nil or my_lease < my_own then
    my_lease = my_own
  end
end
if not closing then
  leases[my_id] = my_lease
end

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

local f_last = factor(last or now)
local f_now = factor(now)

-- Shares: the sub-buckets as stored, refilled to now ("s" when one cannot be read), and the replicas'
-- plans (a plan whose replica is not live any more is dropped). The shares decide only when every live replica of
-- the bucket runs this replica's plan on one configuration of one limit.
local my_plan = (not closing and plan ~= '') and plan or nil
local subs = {} -- flow -> { tokens, burst, rate }
local sub_flows = {}
local bad_s = false
for _, field in ipairs(sub_fields) do
  local name = string.sub(field, 3)
  local tk, bu, ra, asked = string.match(h[field], '^(%S+) (%S+) (%S+) (%S+)$')
  tk, bu, ra, asked = finite(tk), finite(bu), finite(ra), whole(asked)
  if not ((string.match(name, '^[%w._-]+$') or name == '*') and #name <= 64) or tk == nil or bu == nil or ra == nil
      or asked == nil or not (bu > 0) or bu > 1e12 or not (ra >= 0) or ra > 1e12 or tk > bu
      or tk < -(bu * (bu + ra * AHEAD) + ra * OWED) or asked > redis_now + SLACK then
    bad_s = true
    dead[#dead + 1] = field
  else
    if last ~= nil then
      tk = math.min(bu, tk + ra * f_last * (now - last) / 1000000)
    end
    subs[name] = { tk, bu, ra, asked }
    sub_flows[#sub_flows + 1] = name
  end
end
if bad_s then
  repair('s')
end
table.sort(sub_flows)
for _, field in ipairs(plan_fields) do
  if field == 'l:' .. me then
    if my_plan == nil then
      dead[#dead + 1] = field
    end
  elseif not live[string.sub(field, 3)] then
    dead[#dead + 1] = field
  end
end
local agree = true
for replica, _ in pairs(live) do
  if my_plan == nil or h['l:' .. replica] ~= my_plan then
    agree = false
  end
end
local tokens = {}
local busiest = 0
for i, l in ipairs(limits) do
  local stored = finite(h[l[1]])
  if stored ~= nil and stored < -(l[2] * (l[2] + l[3] * AHEAD) + l[3] * OWED) then
    stored = nil -- more debt than any caller could have booked: garbage
  end
  if h[l[1]] ~= nil and stored == nil then
    repair('t')
  end
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

-- With the shares deciding: the stored sub-buckets when they are the plan's and add up to no more than the bucket
-- holds, else new ones sharing its tokens by burst; the bucket's tokens are then their sum. Without: stored
-- sub-buckets are folded into the limits (none holds more than their sum, in proportion) and dropped.
local share = nil -- { flows, bursts, rates, tokens, asker, from, asked } while the shares decide
local shares_changed = false
local function share_sum()
  local sum = 0
  for i = 1, #share[4] do
    sum = sum + share[4][i]
  end
  return sum
end
if my_plan ~= nil and #ids == 0 and #limits == 1 and agree then
  local fl, wt, total = {}, {}, 0
  for name, weight in string.gmatch(my_plan, '([^=,]+)=([^=,]+)') do
    fl[#fl + 1] = name
    wt[#wt + 1] = tonumber(weight)
    total = total + tonumber(weight)
  end
  local n, capacity, refill = #fl, limits[1][2], limits[1][3]
  local bu, ra, tk, at, asker, star = {}, {}, {}, {}, nil, nil
  for i = 1, n do
    bu[i] = 1 + (capacity - n) * wt[i] / total
    ra[i] = refill * wt[i] / total
    if fl[i] == flow then
      asker = i
    elseif fl[i] == '*' then
      star = i
    end
  end
  local same = #sub_flows == n
  local sum = 0
  for i = 1, n do
    if same then
      local sub = subs[fl[i]]
      same = sub ~= nil and sub[2] == bu[i] and sub[3] == ra[i]
      if same then
        tk[i] = sub[1]
        at[i] = sub[4]
        sum = sum + sub[1]
      end
    end
  end
  if not same or sum > tokens[1] + 1e-9 * capacity then
    for i = 1, n do
      tk[i] = tokens[1] * bu[i] / capacity
      at[i] = 0
    end
    shares_changed = true
    for _, name in ipairs(sub_flows) do
      dead[#dead + 1] = 's:' .. name
    end
  end
  asker = asker or star
  share = { fl, bu, ra, tk, asker, asker, at }
  tokens[1] = share_sum()
elseif #sub_flows > 0 then
  local sum, bursts = 0, 0
  for _, name in ipairs(sub_flows) do
    sum = sum + subs[name][1]
    bursts = bursts + subs[name][2]
  end
  for i, l in ipairs(limits) do
    tokens[i] = math.min(tokens[i], l[2] * sum / bursts)
  end
  for _, name in ipairs(sub_flows) do
    dead[#dead + 1] = 's:' .. name
  end
  shares_changed = true
end

local wait = 0
if op == 'acquire' and share ~= nil then
  -- its own flow's token now; else a token another flow holds beyond what it keeps for its own callers, now (the
  -- fullest by burst, the first of equals): one call (or its burst beyond the call lent, when less) while that flow
  -- asked within the last three slots of its rate, else nothing; else its slot on its own refill. Then, as any
  -- acquire, never before the hold.
  local bu, ra, tk, asker, asked = share[2], share[3], share[4], share[5], share[7]
  if tk[asker] < cost then
    local fullest = -1
    for i = 1, #tk do
      local part = tk[i] / bu[i]
      local keeps = 0
      if ra[i] > 0 and asked[i] > 0 and now - asked[i] <= 3000000 / ra[i] then
        keeps = math.min(cost, bu[i] - cost)
      end
      if i ~= asker and tk[i] - cost >= keeps and part > fullest then
        share[6] = i
        fullest = part
      end
    end
    if share[6] == asker then
      wait = (cost - tk[asker]) / (share[3][asker] * f_now) * 1000000
    end
  end
elseif op == 'acquire' then
  for i, l in ipairs(limits) do
    if tokens[i] < cost then
      local w_i = (cost - tokens[i]) / (l[3] * f_now) * 1000000
      if w_i > wait then
        wait = w_i
      end
    end
  end
end
if op == 'acquire' then
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
  if g == nil and k == nil and hold == 0 and #ids == 0 and #repaired == 0 and share == nil then
    return text -- never cut, never held, alone, nothing repaired: generation = epoch, factor 1, hold 0, one configuration
  end
  local fixed = #repaired == 0 and '-' or table.concat(repaired, ',')
  text = string.format('%s %d %.17g %d %d %s %s %s', text, generation, f_now, hold, #ids + 1, fixed, j or '-',
    table.concat(ids, ';'))
  if share ~= nil then
    return text .. ' ' .. share[1][share[6]] -- the flow whose tokens it took
  end
  return text
end

if op == 'acquire' and wait > arg_micros and not g_written and #repaired == 0 and not shares_changed then
  done = 0
  return reply() -- nothing to record (a repair, though, is written whatever the answer)
end
if op == 'acquire' and wait > arg_micros then
  done = 0
end

local cut = false
if op == 'cut' then
  local f_before = f_now
  local asked = math.min(arg_micros, max_hold)
  local news = booked_gen ~= nil and booked_gen >= generation -- booked under the current rate: a cut
  local longer = asked > 0 and now + asked > hold -- a Retry-After that ends later than the hold
  local mine = w == me and k ~= nil
  if (news or longer) and mine and o ~= nil and o > k and ((q or 0) + 1) * 2 > (a or 0) then
    done = 2 -- this replica made the last cut, half its calls since met 429s (this one too), others report none
    news = false
    longer = false
  elseif not news then
    done = 0
  end
  if news then
    local before = f_now
    f_cut = math.max(floor, beta * f_now)
    f_now = f_cut
    if lone_us > 0 and (k == nil or now - k > LONE) then
      p = before
    else
      p = nil
    end
    k = now
    w = me
    a = nil
    q = nil
    cut = true
  end
  if mine and not cut and (q or 0) < TALLY then
    q = (q or 0) + 1 -- one more report by the cut's maker
    hset[#hset + 1] = 'q'
    hset[#hset + 1] = string.format('%d', q)
  end
  if news or longer then
    -- A new generation: no tokens until the provider accepts again (it said it is empty: the tokens of the hold
    -- added beyond the one in force), then the slots booked ahead, in their order, at the new rate; each caller's
    -- process moves its slot by j without asking again (header: "cut").
    local prev = generation
    local held = math.max(hold, now)
    g = math.max(redis_now, generation + 1)
    generation = g
    if longer then
      hold = now + asked
    end
    local added = math.max(0, hold - held)
    for i, l in ipairs(limits) do
      tokens[i] = math.min(tokens[i], 0) - (l[3] * f_now) * added / 1000000
    end
    if share ~= nil then
      for i = 1, #share[4] do
        share[4][i] = math.min(share[4][i], 0) - (share[3][i] * f_now) * added / 1000000
      end
      tokens[1] = share_sum()
    end
    j = string.format('%d:%d:%d:%.17g:%.17g:%d:%d', prev, g, now, f_before, f_now, held, math.max(hold, held))
    hset[#hset + 1] = 'j'
    hset[#hset + 1] = j
    published = true
    g_written = true
  end
elseif done == 1 and not closing and share ~= nil then
  local bu, ra, tk, asker, from = share[2], share[3], share[4], share[5], share[6]
  if op == 'acquire' then
    tk[from] = math.min(tk[from], bu[from] - ra[from] * f_now * wait / 1000000) - cost
    share[7][asker] = now
  elseif op == 'refund' then
    tk[asker] = math.min(bu[asker], tk[asker] + cost)
  elseif op == 'charge' then
    tk[asker] = tk[asker] - cost
  end
  tokens[1] = share_sum()
elseif done == 1 and not closing then
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
if op == 'acquire' and k ~= nil and w ~= nil and w ~= me and (o == nil or o <= k) then
  o = now -- another replica asks for slots since the last cut: its maker's further reports need corroboration
  hset[#hset + 1] = 'o'
  hset[#hset + 1] = string.format('%d', o)
elseif op == 'acquire' and k ~= nil and w == me and now >= hold and (a or 0) < TALLY then
  a = (a or 0) + 1 -- a call of the cut's maker once the hold is over: its 429s must be rare before it counts alone
  hset[#hset + 1] = 'a'
  hset[#hset + 1] = string.format('%d', a)
end

local ttl = 0
hset[#hset + 1] = 'u'
hset[#hset + 1] = string.format('%d', now)
if fresh then
  hset[#hset + 1] = 'e'
  hset[#hset + 1] = epoch
end
if h['v'] ~= LAYOUT then
  hset[#hset + 1] = 'v'
  hset[#hset + 1] = LAYOUT
end
if renewed then
  hset[#hset + 1] = my_field
  hset[#hset + 1] = string.format('%d', my_lease)
  hset[#hset + 1] = my_replica
  hset[#hset + 1] = my_id .. '/' .. string.format('%d', my_own)
end
for i, l in ipairs(limits) do
  hset[#hset + 1] = l[1]
  hset[#hset + 1] = string.format('%.17g', tokens[i])
  local to_full = (l[2] - tokens[i]) / (l[3] * f_now) * 1000
  if to_full > ttl then
    ttl = to_full
  end
end
if my_plan ~= nil and (renewed or h['l:' .. me] ~= my_plan) then
  hset[#hset + 1] = 'l:' .. me
  hset[#hset + 1] = my_plan
end
if share ~= nil then
  for i = 1, #share[4] do
    hset[#hset + 1] = 's:' .. share[1][i]
    hset[#hset + 1] = string.format('%.17g %.17g %.17g %d', share[4][i], share[2][i], share[3][i], share[7][i])
    local to_full = share[3][i] > 0 and (share[2][i] - share[4][i]) / (share[3][i] * f_now) * 1000 or 0
    if to_full > ttl then
      ttl = to_full -- a flow of weight 0 borrows only: its sub-bucket never fills
    end
  end
end
for _, ends in pairs(leases) do
  if (ends - now) / 1000 > ttl then
    ttl = (ends - now) / 1000
  end
end
if g_written then
  hset[#hset + 1] = 'g'
  hset[#hset + 1] = string.format('%d', g)
end
if cut then
  hset[#hset + 1] = 'k'
  hset[#hset + 1] = string.format('%d', k)
  hset[#hset + 1] = 'f'
  hset[#hset + 1] = string.format('%.17g', f_cut)
  hset[#hset + 1] = 'w'
  hset[#hset + 1] = w
  dead[#dead + 1] = 'a'
  dead[#dead + 1] = 'q'
  if p ~= nil then
    hset[#hset + 1] = 'p'
    hset[#hset + 1] = string.format('%.17g', p)
  else
    dead[#dead + 1] = 'p'
  end
end
if published and hold > now then
  hset[#hset + 1] = 'h'
  hset[#hset + 1] = string.format('%d', hold)
end
if k ~= nil then
  -- the rate's way back to the configured one is part of the state
  local back
  if p ~= nil and lone_us > 0 and now - k < lone_us then
    back = (lone_us - (now - k)) / 1000 + (1 - p) / alpha * 1000
  else
    back = (1 - f_now) / alpha * 1000
  end
  if back > ttl then
    ttl = back
  end
end
if hold > now and (hold - now) / 1000 > ttl then
  ttl = (hold - now) / 1000
end
ttl = math.min(math.ceil(ttl + math.max(0, now - redis_now) / 1000) + 1, MAX_TTL)
local expire = fresh or redis.call('PTTL', key) < ttl
if expire then
  ttl = math.min(ttl + math.floor(ttl / 4), MAX_TTL)
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
  -- Tells every process of the fleet at once, so that callers waiting on slots of the old rate move them by j now
  -- rather than at their process's next round trip: "<epoch>:<generation>". A hint: a process believes only a reply.
  redis.call('PUBLISH', key .. ':fleet', epoch .. ':' .. string.format('%d', g))
end

return reply()
