-- Release annotators' reservations: the pending task is dropped and its item goes back to
-- the pool. KEYS: 1 queue, 2 leases. ARGV: 1 key prefix, 2 now, 3 "expired" (only leases
-- past their end) or "named", 4.. annotator names. Returns the released names.
local queue, leases, prefix = KEYS[1], KEYS[2], ARGV[1]
local names = {}
if ARGV[3] == 'expired' then
  names = redis.call('ZRANGEBYSCORE', leases, '-inf', tonumber(ARGV[2]))
else
  for i = 4, #ARGV do table.insert(names, ARGV[i]) end
end
local out = {}
for _, name in ipairs(names) do
  if release_pending(prefix, queue, name, 'released') then table.insert(out, name) end
  redis.call('ZREM', leases, name)
end
return out
