# test/t/013_plan_probe_reuse.pl
#   The planner's probe of a bloofi index keeps the entries it found, and the
#   scan of the same element takes them instead of searching again
#   (src/bloofi_probe_reuse.c), only while nothing its snapshot can see has
#   been added since: no transaction with an XID ended, no write of its own
#   transaction.  Two sessions: session A probes (a lookup of a constant)
#   and then runs a generic plan of the same lookup, which does not probe and
#   so meets the kept entries; session B commits (or aborts) a row of that
#   element in between.  The generic lookup must count what a sequential
#   scan in the same snapshot counts, every time; and it must take the kept
#   entries when nothing came between (it reads one index page, the
#   metapage, against a search's many).  The same on a hot standby whose
#   replay brings a new row between the probe and the scan.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('probe_reuse');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', "autovacuum = off\njit = off");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION bloomsample;
	CREATE TABLE t (id int, f bloomfilter) WITH (autovacuum_enabled = off);
	-- element 5 in rows 1-3; every row its own 20 elements
	INSERT INTO t SELECT i, bloom_from_array(
	    ARRAY(SELECT 1000 * i::bigint + j FROM generate_series(1, 20) j)
	    || CASE WHEN i <= 3 THEN ARRAY[5::bigint] ELSE '{}' END, 4096, 5)
	FROM generate_series(1, 3000) i;
	CREATE INDEX t_f ON t USING bloofi (f);
	ANALYZE t;
});
$node->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('probe_reuse_standby');
$standby->init_from_backup($node, 'bk', has_streaming => 1);
$standby->start;

my $setup = q{
	SET enable_seqscan = off;
	SET plan_cache_mode = force_generic_plan;
	PREPARE g(bigint) AS SELECT count(*) FROM t WHERE f @> $1;
	-- the oracle: no index matches f | f, and a generic plan does not probe
	PREPARE s(bigint) AS SELECT count(*) FROM t WHERE bloom_contains(f | f, $1);
};

# the index pages the generic lookup's Bitmap Index Scan read
sub scan_pages
{
	my ($session) = @_;
	my $plan = $session->query_safe(q{EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) EXECUTE g(5)});
	$plan =~ /Bitmap Index Scan on t_f.*?Buffers: shared ([^\n]*)/s
	  or die "no index scan buffers in: $plan";
	my $line = $1;
	my $pages = 0;
	$pages += $1 while $line =~ /(?:hit|read)=(\d+)/g;    # a page read or found in cache
	return $pages;
}

# the generic lookup and a sequential scan, in one snapshot
sub counts
{
	my ($session) = @_;
	my $r = $session->query_safe(q{EXECUTE s(5); EXECUTE g(5);});
	return join(' ', split /\n/, $r);
}

my $a = $node->background_psql('postgres', on_error_stop => 1);
$a->query_safe($setup);
like($a->query_safe(q{EXPLAIN (COSTS OFF) EXECUTE s(5)}), qr/Seq Scan on t/,
	'the oracle is a sequential scan');

# nothing between the probe and the scan: the kept entries are taken
$a->query_safe(q{BEGIN});
is($a->query_safe(q{SELECT count(*) FROM t WHERE f @> 5::bigint}), '3', 'the probed lookup');
is(scan_pages($a), '1', 'the generic lookup took the probe\'s entries (the metapage alone)');
$a->query_safe(q{SET LOCAL bloomsample.plan_probe_reuse = off});
cmp_ok(scan_pages($a), '>', 2, 'with plan_probe_reuse off it searches the index');
$a->query_safe(q{RESET bloomsample.plan_probe_reuse});

# another session commits a row of the element between the probe and the scan
is($a->query_safe(q{SELECT count(*) FROM t WHERE f @> 5::bigint}), '3', 'probed again');
$node->safe_psql('postgres',
	q{INSERT INTO t VALUES (10001, bloom_from_array(ARRAY[5::bigint], 4096, 5))});
is(counts($a), '4 4', 'a commit after the probe: the scan finds the new row');

# an abort between them: still right
is($a->query_safe(q{SELECT count(*) FROM t WHERE f @> 5::bigint}), '4', 'probed again');
$node->safe_psql('postgres', q{
	BEGIN; INSERT INTO t VALUES (10002, bloom_from_array(ARRAY[5::bigint], 4096, 5)); ROLLBACK;
});
is(counts($a), '4 4', 'an abort after the probe: the same rows');

# this transaction's own write between them
is($a->query_safe(q{SELECT count(*) FROM t WHERE f @> 5::bigint}), '4', 'probed again');
$a->query_safe(q{INSERT INTO t VALUES (10003, bloom_from_array(ARRAY[5::bigint], 4096, 5))});
is(counts($a), '5 5', 'an own insert after the probe: the scan finds it');
$a->query_safe(q{COMMIT});

# REPEATABLE READ: a commit after the probe stays invisible either way
$a->query_safe(q{BEGIN ISOLATION LEVEL REPEATABLE READ});
is($a->query_safe(q{SELECT count(*) FROM t WHERE f @> 5::bigint}), '5', 'repeatable read: probed');
$node->safe_psql('postgres',
	q{INSERT INTO t VALUES (10004, bloom_from_array(ARRAY[5::bigint], 4096, 5))});
is(counts($a), '5 5', 'repeatable read: the snapshot\'s rows');
$a->query_safe(q{COMMIT});
is(counts($a), '6 6', 'the next transaction sees the row');
$a->quit;

# a hot standby: replay brings a row between the probe and the scan
$node->wait_for_catchup($standby);
my $r = $standby->background_psql('postgres', on_error_stop => 1);
$r->query_safe($setup);
$r->query_safe(q{BEGIN});
is($r->query_safe(q{SELECT count(*) FROM t WHERE f @> 5::bigint}), '6', 'standby: probed');
is(scan_pages($r), '1', 'standby: the generic lookup took the probe\'s entries');
$node->safe_psql('postgres',
	q{INSERT INTO t VALUES (10005, bloom_from_array(ARRAY[5::bigint], 4096, 5))});
$node->wait_for_catchup($standby);
is(counts($r), '7 7', 'standby: a replayed commit after the probe: the scan finds the row');
$r->query_safe(q{COMMIT});
$r->quit;

done_testing();
