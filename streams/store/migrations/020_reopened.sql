-- A row whose valid end came from a row later retired as never true (a plan cancelled or
-- changed before its date) is reopened: retired with invalid_reason 'reopened', and a copy
-- carries the end it had before (streams/store/valid_ends.py).
ALTER TABLE facts DROP CONSTRAINT IF EXISTS facts_invalid_reason_check;
ALTER TABLE facts ADD CONSTRAINT facts_invalid_reason_check
    CHECK (invalid_reason IN ('superseded', 'closed', 'cascade', 'renewed', 'reopened'));
