-- An operator's entry names the person who acted: the support account
-- signed in to the console, or the login of whoever ran `ppwr admin`.
-- Entries written before, and those of API keys and the system, have none.
ALTER TABLE audit_log ADD COLUMN actor_name text NOT NULL DEFAULT '';
