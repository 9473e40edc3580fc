-- The bit-array kernels' variants (bloomsample_kernels()): one row per
-- kernel, the variant in use among those the CPU runs, the default always
-- among them (the highest is used unless BLOOMSAMPLE_KERNELS caps it).
-- Which variant depends on the machine, so only these properties are shown;
-- test/unit/test_kernels.c compares every variant the machine has with the
-- default one, bit for bit.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

SELECT kernel,
       variant = ANY (available) AS in_use_is_available,
       available[1] = 'default' AS default_first,
       available <@ ARRAY['default', 'popcnt', 'avx2', 'avx512'] AS known_names
FROM bloomsample_kernels()
ORDER BY kernel;
