-- Register annotators with their tokens in one atomic step.
-- KEYS: 1 annotators (hash name -> {"annotator", "token": sha256 of the token}).
-- ARGV: 1 token key prefix, 2 campaign id, 3 "new" (refuse when a name exists) or "rotate"
--       (a name that exists gets the new token; its old one stops working), 4.. name, sha, ...
-- Returns {"ok"} | {"taken", name}.
local annotators, prefix, cid, mode = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
if mode == 'new' then
  for i = 4, #ARGV, 2 do
    if redis.call('HEXISTS', annotators, ARGV[i]) == 1 then return {'taken', ARGV[i]} end
  end
end
for i = 4, #ARGV, 2 do
  local name, sha = ARGV[i], ARGV[i + 1]
  local old = redis.call('HGET', annotators, name)
  if old then
    local o = cjson.decode(old)
    if o.token then redis.call('DEL', prefix .. o.token) end
  end
  redis.call('HSET', annotators, name, cjson.encode({annotator = name, token = sha}))
  redis.call('SET', prefix .. sha, cjson.encode({campaign = cid, annotator = name}))
end
return {'ok'}
