# bloomsample: PGXS build.
#
#   make / make install         build and install the extension
#   make installcheck           pg_regress tests (sql/, expected/) and TAP tests (test/t/)
#   make unitcheck              unit tests of the PostgreSQL-independent core (test/unit/)
#   make bench                  benchmarks (test/bench/; needs an installed extension)
#   make fuzz                   sqlsmith against a throwaway cluster (test/fuzz/; needs an
#                               installed extension and sqlsmith; FUZZ_SEEDS, FUZZ_SECONDS)
#   make check-sanitize         pg_regress and a short fuzz run with the extension built
#                               under ASan/UBSan (test/sanitize/; PostgreSQL left as it is)
#   make deb                    the Debian packages postgresql-NN-bloomsample (debian/),
#                               one per installed PostgreSQL NN of debian/pgversions (15+;
#                               debian/control regenerated for them: pg_buildext updatecontrol),
#                               built in a copy of the tree under DEB_DIR (tmp_deb), then
#                               lintian; needs dpkg-dev, debhelper, lintian and
#                               postgresql-server-dev-all
#   make plots                  SVG charts of the benchmarks' CSV files (test/bench/plot.sh;
#                               PLOTS_IN, PLOTS_OUT; needs gnuplot-nox)
#
# docs/testing.md describes every kind of test.
#
# Sources are picked up by wildcard: src/core/*.c is the PostgreSQL-independent
# core, src/*.c the PostgreSQL glue, src/sql/[0-9][0-9]_*.sql the install script
# of the current version in parts (concatenated in name order into
# bloomsample--$(EXTVERSION).sql).  Released versions' install scripts
# (src/sql/bloomsample--X.sql, frozen) and the upgrade scripts
# (src/sql/bloomsample--X--Y.sql) are installed as they are: every change to the
# parts goes into the upgrade script of the unreleased version too, and
# test/t/003_upgrade.pl checks that an upgraded 1.0 has the objects of a fresh install.
# docs/architecture.md describes the layout, the versions and the developer's loop.

EXTENSION   = bloomsample
EXTVERSION  = 1.2
MODULE_big  = bloomsample

CORE_SRCS   = $(sort $(wildcard src/core/*.c))
GLUE_SRCS   = $(sort $(wildcard src/*.c))
OBJS        = $(CORE_SRCS:.c=.o) $(GLUE_SRCS:.c=.o)

SQL_PARTS   = $(sort $(wildcard src/sql/[0-9][0-9]_*.sql))
DATA_built  = $(EXTENSION)--$(EXTVERSION).sql
DATA        = $(wildcard src/sql/$(EXTENSION)--*.sql)

# pg_regress files run in the parts' bands (docs/architecture.md, "One band per
# part"), each band's files in name order: the filter type and the planner (1x),
# BloomSampleTree (2x), Bloofi (3x), bloomtree (4x), the deletable filters (6x),
# the frequencies (7x), the value limits (8x); a file of no listed prefix runs
# last.  Every file runs alone (docs/testing.md), so the order changes no result.
REGRESS_ALL    = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_BANDS  = type planner bst bloofi bloomtree cbloom cuckoo frequency value
REGRESS_BANDED = $(foreach b,$(REGRESS_BANDS),$(filter $(b)%,$(REGRESS_ALL)))
REGRESS     = $(REGRESS_BANDED) $(filter-out $(REGRESS_BANDED),$(REGRESS_ALL))
REGRESS_OPTS = --inputdir=. --outputdir=.
PROVE_TESTS = $(sort $(wildcard test/t/*.pl))
# TAP tests (PostgreSQL::Test::Cluster) run when test/t/ holds any
TAP_TESTS   = $(if $(PROVE_TESTS),1,)

PG_CPPFLAGS = -I$(srcdir)/src -I$(srcdir)/src/core
EXTRA_CLEAN = $(DATA_built) test/unit/bin test/bench/bin tmp_deb

PG_CONFIG  ?= pg_config
PGXS       := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

$(DATA_built): $(SQL_PARTS)
	cat $^ > $@

# PGXS tracks no header dependencies: rebuild every object when a header
# changes (a stale object compiled against an old struct layout is silent)
HEADERS     = $(wildcard src/*.h src/core/*.h)
$(OBJS) $(OBJS:.o=.bc): $(HEADERS)

# ---- unit tests of the core: plain C, no server ------------------------------
UNIT_CC     ?= $(CC)
UNIT_CFLAGS ?= -O2 -g -Wall -Wextra -Werror -std=gnu11
UNIT_BIN    ?= test/unit/bin
UNIT_TESTS  = $(patsubst test/unit/%.c,$(UNIT_BIN)/%,$(sort $(wildcard test/unit/test_*.c)))

# test/ref/*.c: reference implementations the tests compare with (not in the library)
REF_SRCS    = $(sort $(wildcard test/ref/*.c))

# the core and the references are compiled once into one archive that every
# test links (compiling them into each of the ~15 tests took minutes of CI)
UNIT_HDRS   = $(wildcard src/core/*.h test/ref/*.h test/unit/*.h test/unit/*.inc)
UNIT_LIB    = $(UNIT_BIN)/obj/libcore.a
UNIT_OBJS   = $(patsubst %.c,$(UNIT_BIN)/obj/%.o,$(CORE_SRCS) $(REF_SRCS))

$(UNIT_BIN)/obj/%.o: %.c $(UNIT_HDRS)
	@mkdir -p $(dir $@)
	$(UNIT_CC) $(UNIT_CFLAGS) -Isrc/core -Itest/ref -c -o $@ $<

$(UNIT_LIB): $(UNIT_OBJS)
	rm -f $@
	ar rcs $@ $^

$(UNIT_BIN)/%: test/unit/%.c $(UNIT_LIB) $(UNIT_HDRS)
	@mkdir -p $(UNIT_BIN)
	$(UNIT_CC) $(UNIT_CFLAGS) -Isrc/core -Itest/ref -Itest/unit -o $@ $< $(UNIT_LIB) -lm

.PHONY: unitcheck unitcheck-sanitize bench fuzz check-sanitize deb plots
unitcheck: $(UNIT_TESTS)
	@fail=0; for t in $(UNIT_TESTS); do echo "== $$t"; $$t || fail=1; done; exit $$fail

# the same tests under AddressSanitizer and UndefinedBehaviorSanitizer (clang),
# built apart (test/unit/bin/san) so that the two builds never mix objects
unitcheck-sanitize:
	$(MAKE) unitcheck UNIT_CC=clang-14 UNIT_BIN=test/unit/bin/san \
		UNIT_CFLAGS="-O1 -g -Wall -Werror -std=gnu11 -fsanitize=address,undefined -fno-sanitize-recover=all -DBS_NO_TARGET_CLONES"

bench:
	bash test/bench/run.sh

fuzz:
	PG_CONFIG=$(PG_CONFIG) bash test/fuzz/run.sh

check-sanitize:
	PG_CONFIG=$(PG_CONFIG) bash test/sanitize/run.sh

# ---- the Debian package (debian/: pg_buildext, debian/pgversions) -------------
# dpkg-buildpackage builds, installs into debian/postgresql-15-bloomsample and
# runs the pg_regress suite against those files; it cleans the tree it builds
# in, so it works in a copy: the .deb files land in $(DEB_DIR), next to the
# source package (.dsc, native .tar.xz), and lintian checks all of them (the
# .changes lists them): no error and no warning.
DEB_DIR ?= tmp_deb
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/bloomsample
	tar --exclude=./.git --exclude=./$(DEB_DIR) --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
	    --exclude=./tmp_check --exclude=./results --exclude=./log --exclude=./.tmp --exclude=./tmp_regress \
	    --exclude=./test/unit/bin --exclude=./test/bench/bin \
	    --exclude=./$(DATA_built) -cf - . | tar -xf - -C $(DEB_DIR)/bloomsample
	cd $(DEB_DIR)/bloomsample && pg_buildext updatecontrol && dpkg-buildpackage -us -uc -j2
	lintian --fail-on error,warning $(DEB_DIR)/*.changes
	@ls -l $(DEB_DIR)/*.deb

# SVG charts of the benchmarks' CSV files (test/bench/results/<date>/)
PLOTS_IN  ?= test/bench/results
PLOTS_OUT ?= docs/plots
plots:
	bash test/bench/plot.sh $(PLOTS_IN) $(PLOTS_OUT)
