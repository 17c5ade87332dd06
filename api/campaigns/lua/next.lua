-- The annotator's pending task, or a newly reserved one, in one atomic step.
-- KEYS: 1 a:<who> (hash), 2 seen:<who> (set), 3 queue (zset item -> votes planned),
--       4 leases (zset annotator -> lease end), 5 status, 6 the invitation's token key,
--       7 this minute's request count of the token, 8 ... of the caller's address
-- ARGV: 1 who, 2 now, 3 lease seconds, 4 target votes, 5 new task id, 6 order seed,
--       7 a number in [0, 1) (where to start among the least-voted items),
--       8 key prefix of the campaign ("judge:campaign:<id>:"), 9 item to reserve ("" = choose),
--       10 "1" when that item is a validation item, 11 requests per minute per token (0 = no
--       limit), 12 ... per address, 13 validation rate p, 14 a number in [0, 1) (the draw),
--       15.. validation candidates in random order. A task is a validation task when the draw
--       is below p, or when the annotator's validation tasks fell behind p·served (so gaps
--       stay bounded while positions stay random); the first candidate they
--       have not seen replaces the chosen item (only while there is work left for them).
-- Returns {"new"|"pending", task json} | {"closed"} | {"revoked"} | {"none"}
--       | {"rate", "token"|"address"}.
local akey, seen, queue, leases = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now = tonumber(ARGV[2])
local prefix = ARGV[8]

local no = refused(KEYS[6], KEYS[5], KEYS[7], KEYS[8], tonumber(ARGV[11]), tonumber(ARGV[12]))
if no then return no end

local function release(name)
  release_pending(prefix, queue, name, 'expired')
  redis.call('ZREM', leases, name)
end

-- expired leases go back to the pool (a few per call: the work per call stays bounded)
for _, name in ipairs(redis.call('ZRANGEBYSCORE', leases, '-inf', now, 'LIMIT', 0, 16)) do
  release(name)
end

local raw = redis.call('HGET', akey, 'pending')
if raw then
  local t = cjson.decode(raw)
  if (t['until'] or 0) > now then return {'pending', raw} end
  release(ARGV[1])
end

local item, validation = nil, false
if ARGV[9] ~= '' then
  item, validation = ARGV[9], ARGV[10] == '1'
else
  local target = tonumber(ARGV[4])
  local k = redis.call('ZCOUNT', queue, '-inf', '(' .. target)
  if k > 0 then
    local low = redis.call('ZRANGE', queue, 0, 0, 'WITHSCORES')[2]
    local c = redis.call('ZCOUNT', queue, low, low)
    local r = math.min(c - 1, math.floor(tonumber(ARGV[7]) * c))
    -- the least-voted items from a random place, then the ones before it, then the rest
    local segments = {{r, c - 1}, {0, r - 1}, {c, k - 1}}
    for _, seg in ipairs(segments) do
      local i = seg[1]
      while not item and i <= seg[2] do
        local last = math.min(i + 31, seg[2])
        for _, member in ipairs(redis.call('ZRANGE', queue, i, last)) do
          if redis.call('SISMEMBER', seen, member) == 0 then
            item = member
            break
          end
        end
        i = last + 1
      end
      if item then break end
    end
  end
  -- a validation turn: only while there is work left, so it never outlasts the campaign
  local p = tonumber(ARGV[13])
  local served = tonumber(redis.call('HGET', akey, 'served') or '0')
  local checked = tonumber(redis.call('HGET', akey, 'validations') or '0')
  local turn = tonumber(ARGV[14]) < p or checked < math.floor(served * p)
  if item and turn then
    for i = 15, #ARGV do
      if redis.call('SISMEMBER', seen, ARGV[i]) == 0 then
        item, validation = ARGV[i], true
        break
      end
    end
  end
end
if not item then return {'none'} end

local served = redis.call('HINCRBY', akey, 'served', 1)
local lease_end = now + tonumber(ARGV[3])
local task = cjson.encode({
  id = ARGV[5], item = item, validation = validation, served_at = now,
  number = served - 1, seed = tonumber(ARGV[6]), ['until'] = lease_end,
})
redis.call('HSET', akey, 'pending', task)
redis.call('SADD', seen, item)
if validation then
  redis.call('HINCRBY', akey, 'validations', 1)
else
  redis.call('ZINCRBY', queue, 1, item)
end
redis.call('ZADD', leases, lease_end, ARGV[1])
return {'new', task}
