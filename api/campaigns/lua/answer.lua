-- One answer to the annotator's pending task, checked and recorded in one atomic step.
-- KEYS: 1 a:<who>, 2 log, 3 outcomes, 4 leases, 5 the invitation's token key, 6 status,
--       7 this minute's request count of the token, 8 ... of the caller's address, 9 queue
-- ARGV: 1 task id, 2 now, 3 min seconds, 4 penalty seconds, 5 entry json,
--       6 outcome json to keep for disagreement ("" = none), 7 item, 8 who,
--       9 requests per minute per token (0 = no limit), 10 ... per address,
--       11 most answers (accepted or not) one annotator may send, 12 key prefix of the
--       campaign ("judge:campaign:<id>:")
-- A task whose lease has ended is not answered: it is released here as the next sweep
-- would release it (its item back in the pool), whether or not a sweep came first.
-- Returns {"ok"} | {"paused", seconds left} | {"fast", pause} | {"gone"} | {"expired"}
--       | {"revoked"} | {"closed"} | {"rate", "token"|"address"} | {"cap"}.
local akey = KEYS[1]
local no = refused(KEYS[5], KEYS[6], KEYS[7], KEYS[8], tonumber(ARGV[9]), tonumber(ARGV[10]))
if no then return no end
local raw = redis.call('HGET', akey, 'pending')
if not raw then return {'gone'} end
local t = cjson.decode(raw)
if t.id ~= ARGV[1] then return {'gone'} end
local now = tonumber(ARGV[2])
if (t['until'] or now + 1) <= now then
  release_pending(ARGV[12], KEYS[9], ARGV[8], 'expired')
  redis.call('ZREM', KEYS[4], ARGV[8])
  return {'expired'}
end
if redis.call('HINCRBY', akey, 'answers', 1) > tonumber(ARGV[11]) then return {'cap'} end
local min_s, pause = tonumber(ARGV[3]), tonumber(ARGV[4])
local e = cjson.decode(ARGV[5])
e.seconds = math.floor((now - t.served_at) * 1000 + 0.5) / 1000
local until_ = tonumber(redis.call('HGET', akey, 'penalty_until') or '0')
if now < until_ then
  e.accepted, e.fast, e.paused = false, false, true
  redis.call('RPUSH', KEYS[2], cjson.encode(e))
  return {'paused', tostring(until_ - now)}
end
if now - t.served_at < min_s then
  -- the pause counts as looking time: right after it the floor is met
  t.served_at = now + pause - min_s
  redis.call('HSET', akey, 'pending', cjson.encode(t), 'penalty_until', now + pause)
  e.accepted, e.fast = false, true
  redis.call('RPUSH', KEYS[2], cjson.encode(e))
  return {'fast', tostring(pause)}
end
e.accepted, e.fast = true, false
redis.call('HDEL', akey, 'pending')
redis.call('RPUSH', KEYS[2], cjson.encode(e))
redis.call('ZREM', KEYS[4], ARGV[8])
if ARGV[6] ~= '' then
  local got = redis.call('HGET', KEYS[3], ARGV[7])
  local kept = got and cjson.decode(got) or {}
  table.insert(kept, cjson.decode(ARGV[6]))
  redis.call('HSET', KEYS[3], ARGV[7], cjson.encode(kept))
end
return {'ok'}
