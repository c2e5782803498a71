-- A fact an earlier version of its episode stated and a newer version no longer states is
-- taken back: retired with invalid_reason 'retracted', no copy (streams/store/retraction.py).
ALTER TABLE facts DROP CONSTRAINT IF EXISTS facts_invalid_reason_check;
ALTER TABLE facts ADD CONSTRAINT facts_invalid_reason_check
    CHECK (invalid_reason IN ('superseded', 'closed', 'cascade', 'renewed', 'reopened',
                              'retracted'));
