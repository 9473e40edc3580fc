-- Shared setup of the bloomtree_errors and bloomtree_optimize regression
-- files, included with
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \i :abs_srcdir/sql/include/err.sql
-- It creates the extension and the function pg_temp.err(q): the SQLSTATE and
-- message of a statement that must fail ('no error' when it does not).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
