-- Revoke annotators' invitations: their token stops working at once (every route checks
-- it), the entry is kept and marked revoked. KEYS: 1 annotators. ARGV: 1 token key prefix,
-- 2.. names. Returns the names revoked (unknown names are left out).
local annotators, prefix = KEYS[1], ARGV[1]
local out = {}
for i = 2, #ARGV do
  local raw = redis.call('HGET', annotators, ARGV[i])
  if raw then
    local o = cjson.decode(raw)
    if o.token then redis.call('DEL', prefix .. o.token) end
    o.revoked = true
    redis.call('HSET', annotators, ARGV[i], cjson.encode(o))
    table.insert(out, ARGV[i])
  end
end
return out
