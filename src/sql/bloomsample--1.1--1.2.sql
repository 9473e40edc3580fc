-- bloomsample upgrade from 1.1 to 1.2 (ALTER EXTENSION bloomsample UPDATE TO '1.2').
-- 1.2 is not released yet: every change to the install script's parts
-- (src/sql/[0-9][0-9]_*.sql) goes here too, until it is.  test/t/003_upgrade.pl
-- installs 1.0 and 1.1, runs ALTER EXTENSION ... UPDATE and compares every object
-- of the extension (and its properties) with a fresh install of 1.2.

\echo Use "ALTER EXTENSION bloomsample UPDATE TO '1.2'" to load this file. \quit

-- ==== bloomfilter storage forms (sparse values; the type's storage) ====
-- Values in line up to a page: a sparse filter of a few kB is read without a
-- TOAST fetch.  New columns take it; existing columns keep their storage
-- (ALTER TABLE ... ALTER COLUMN ... SET STORAGE MAIN moves them over).
ALTER TYPE bloomfilter SET (STORAGE = main);
