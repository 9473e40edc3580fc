-- Bloofi index: reloption bounds and errors (filters with other parameters
-- than the index's, wrong types, unsupported index forms, introspection of
-- what is not a bloofi index).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

-- an unlogged table whose index took the parameters of its first filter
CREATE UNLOGGED TABLE ul (f bloomfilter);
CREATE INDEX ul_f ON ul USING bloofi (f);
INSERT INTO ul VALUES (NULL), (bloom_add(bloom_empty(64, 2), 5::bigint));

-- a table with a primary key and a bloofi index
CREATE TABLE bt (id int PRIMARY KEY, f bloomfilter);
CREATE INDEX bt_f ON bt USING bloofi (f) WITH (order = 4);

-- reloption bounds
CREATE INDEX ON ul USING bloofi (f) WITH (order = 1);
CREATE INDEX ON ul USING bloofi (f) WITH (order = 1001);
CREATE INDEX ON ul USING bloofi (f) WITH (leaf_capacity = 7);
CREATE INDEX ON ul USING bloofi (f) WITH (leaf_capacity = 70000);
CREATE INDEX ON ul USING bloofi (f) WITH (fanout = 4);
CREATE INDEX ON ul USING bloofi (f) WITH (fastupdate = maybe);
CREATE INDEX ul_f64 ON ul USING bloofi (f) WITH (order = 64);
SELECT "order", leaf_capacity FROM bloofi_stats('ul_f64');
CREATE INDEX ul_f100 ON ul USING bloofi (f) WITH (order = 3, leaf_capacity = 100);
SELECT "order", leaf_capacity FROM bloofi_stats('ul_f100');

-- errors
INSERT INTO ul VALUES (bloom_empty(128, 2));
INSERT INTO ul VALUES (bloom_empty(64, 2, 9));
CREATE TABLE notbloom (x int);
CREATE INDEX ON notbloom USING bloofi (x);
CREATE INDEX ON bt USING bloofi (f, f);
CREATE UNIQUE INDEX ON bt USING bloofi (f);
SELECT bloofi_check('bt_pkey');
-- a table, not an index: named too (issue 26)
SELECT bloofi_check('bt');
SELECT * FROM bloofi_stats('bt');
SELECT * FROM bloofi_probe('bt_pkey', 1::bigint);
SELECT bloofi_check(0);
SELECT * FROM bloofi_probe('bt_f', NULL::bigint);

-- filters whose parameters differ from the index's fail the build too
CREATE TABLE mixed (f bloomfilter);
INSERT INTO mixed VALUES (bloom_empty(64, 2)), (bloom_empty(64, 3));
CREATE INDEX ON mixed USING bloofi (f);

DROP TABLE bt, ul, notbloom, mixed;
