-- One extraction claim, named. claim_next stamps every claim it takes (a new one, a stale
-- one taken over, or one taken back) with a fresh token, and the stage events carry it from
-- extraction to the writer (FactsExtracted.claim_token and onward). A record dead-lettered
-- after extraction can then end exactly the claim it belongs to and let the tenant's next
-- episode in at once, instead of holding the tenant's gate until the claim goes stale;
-- and the writer marks an episode done only for the claim whose output it writes. The
-- episode's event id (claim_event_id) cannot do this: every re-claim of it shares it.
ALTER TABLE episodes ADD COLUMN IF NOT EXISTS claim_token text;
