-- Functions the serving scripts share; api/campaigns/store.py puts this file in front of
-- next.lua, answer.lua and release.lua when it loads them (one chunk, so these locals are
-- in scope there).

-- Count one request against this minute's counter ``key``; true when over ``limit``
-- (0 = no limit).
local function over(key, limit)
  if limit <= 0 then return false end
  local n = redis.call('INCR', key)
  if n == 1 then redis.call('EXPIRE', key, 120) end
  return n > limit
end

-- Why a label request is refused before it is looked at, or nil: a revoked link (its token
-- key is gone), a closed campaign, or too many requests this minute from the link or the
-- caller's address.
local function refused(token_key, status_key, token_count, address_count, token_limit,
                       address_limit)
  if redis.call('EXISTS', token_key) == 0 then return {'revoked'} end
  if redis.call('GET', status_key) == 'closed' then return {'closed'} end
  if over(token_count, token_limit) then return {'rate', 'token'} end
  if over(address_count, address_limit) then return {'rate', 'address'} end
  return nil
end

-- Drop annotator ``name``'s pending task: its item goes back to the pool (validation items
-- were never taken from it), the annotator may see it again, and the campaign's ``counter``
-- statistic counts it. True when there was one. The lease itself is left to the caller.
local function release_pending(prefix, queue, name, counter)
  local a = prefix .. 'a:' .. name
  local raw = redis.call('HGET', a, 'pending')
  if not raw then return false end
  local t = cjson.decode(raw)
  redis.call('HDEL', a, 'pending')
  if not t.validation then redis.call('ZINCRBY', queue, -1, t.item) end
  redis.call('SREM', prefix .. 'seen:' .. name, t.item)
  redis.call('HINCRBY', prefix .. 'stats', counter, 1)
  return true
end

