-- The writer's consumed offsets, per tenant (streams/runtime/sink.py, tenant=).
--
-- Records of different tenants in one partition are handled concurrently (key-ordered
-- lanes), so a single high-water mark per partition is wrong: tenant B's offset 11
-- committing before tenant A's offset 10 would make A's record look applied and lose it.
-- Offsets of ONE tenant are strictly ordered, so the mark is kept per tenant; the
-- per-partition mark is max(last_offset) over its tenants. It also keeps tenants of one
-- partition from queueing on a single hot row.
ALTER TABLE consumed_offsets ADD COLUMN IF NOT EXISTS tenant text NOT NULL DEFAULT '';
ALTER TABLE consumed_offsets DROP CONSTRAINT IF EXISTS consumed_offsets_pkey;
ALTER TABLE consumed_offsets ADD PRIMARY KEY (consumer_group, topic, partition, tenant);
