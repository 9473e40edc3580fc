-- BloomSampleTree: bst_plan sizes a tree as the paper does (its errors:
-- bst_errors).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;
SET bloomsample.bst_random_seed = 12345;

-- the paper's sizing (Tables 2 and 3: n = 1000, accuracy 0.9, k = 3)
SELECT m BETWEEN 60800 AND 60940 AS m_1e6_ok, expected_fp > 0 AS fp_ok,
       nodes = (2::bigint << depth) - 1 AS nodes_ok
FROM bst_plan(1000, 1000000, 0.9);
SELECT m BETWEEN 132800 AND 133070 AS m_1e7_ok,
       abs(1000 / (1000 + (1e7 - 1000) * expected_fp) - 0.9) < 0.001 AS accuracy_ok,
       memory_bytes <= 160 * 1024 * 1024 AS fits
FROM bst_plan(1000, 10000000, 0.9);
