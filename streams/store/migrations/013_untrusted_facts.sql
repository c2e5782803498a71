-- Why a fact is stored but never trusted to end another one (streams/domain/quotes.py,
-- streams/domain/guards.py): its quote is not in the user's own messages, or the model
-- gave no usable confidence. NULL: trusted. Copies of a row carry it on.
ALTER TABLE facts ADD COLUMN IF NOT EXISTS untrusted_reason text;
