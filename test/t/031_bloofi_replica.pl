# test/t/031_bloofi_replica.pl
#   A streaming standby replays a bloofi index (as contrib/bloom's
#   t/001_wal.pl does): after each round of writes on the primary (build,
#   inserts that split nodes, deletes, VACUUM recomputing values,
#   REINDEX, VACUUM merging underfull nodes), the standby's lookups through the index equal the primary's
#   and the standby's own sequential scan.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('bloofi_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', "autovacuum = off");
$primary->start;
$primary->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('bloofi_standby');
$standby->init_from_backup($primary, 'bk', has_streaming => 1);
$standby->start;

my $join_q = q{
	SELECT string_agg(p.x || ':' || t.id, ',' ORDER BY p.x, t.id)
	FROM probe p JOIN t ON t.f @> p.x};
my $index_q = "SET enable_seqscan = off; SET enable_indexscan = off; $join_q";
my $seq_q = "SET enable_bitmapscan = off; SET enable_indexscan = off; $join_q";

sub check_replay
{
	my ($what) = @_;
	$primary->wait_for_catchup($standby);
	my $on_primary = $primary->safe_psql('postgres', $index_q);
	my $on_standby = $standby->safe_psql('postgres', $index_q);
	my $seq_standby = $standby->safe_psql('postgres', $seq_q);
	ok(length($on_primary) > 100, "$what: lookups find rows");
	is($on_standby, $on_primary, "$what: standby index results equal the primary's");
	is($on_standby, $seq_standby, "$what: standby index results equal its sequential scan");
	like($standby->safe_psql('postgres', "SET enable_seqscan = off; SET enable_indexscan = off; EXPLAIN (COSTS OFF) $join_q"),
		qr/Bitmap Index Scan on t_f/, "$what: the standby uses the index");
}

$primary->safe_psql('postgres', q{
	CREATE EXTENSION bloomsample;
	CREATE FUNCTION mk(id bigint) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS
	  $$ SELECT bloom_from_array(ARRAY(SELECT 10 * id + j FROM generate_series(0, 9) j), 1536, 4) $$;
	CREATE TABLE t (id bigint, f bloomfilter);
	INSERT INTO t SELECT i, mk(i) FROM generate_series(1, 2000) i;
	CREATE INDEX t_f ON t USING bloofi (f) WITH (order = 3);
	CREATE TABLE probe AS SELECT x::bigint FROM generate_series(0, 75010, 11) x;  -- every id the rounds below insert (up to 7,500)
});
check_replay('after build');

for my $round (1 .. 3)
{
	my $lo = 2000 * $round + 1;
	my $hi = $lo + 1499;
	$primary->safe_psql('postgres', "INSERT INTO t SELECT i, mk(i) FROM generate_series($lo, $hi) i");
	check_replay("round $round: inserts");
	$primary->safe_psql('postgres', "DELETE FROM t WHERE id % 5 = $round");
	$primary->safe_psql('postgres', 'VACUUM t');
	check_replay("round $round: deletes and VACUUM");
}
$primary->safe_psql('postgres', 'REINDEX INDEX t_f');
check_replay('after REINDEX');
# 90% of the rows deleted: VACUUM merges underfull nodes (copies, retires the old ones)
my $bottom_before = $primary->safe_psql('postgres', q{SELECT bottom_nodes FROM bloofi_stats('t_f')});
$primary->safe_psql('postgres', 'DELETE FROM t WHERE id % 10 <> 0');
$primary->safe_psql('postgres', 'VACUUM t');
check_replay('after the merge copies');
$primary->safe_psql('postgres', 'SELECT txid_current()');	# no snapshot older than the copies
$primary->safe_psql('postgres', 'VACUUM t');
cmp_ok($primary->safe_psql('postgres', q{SELECT bottom_nodes FROM bloofi_stats('t_f')}), '<', $bottom_before / 2,
	'VACUUM merged underfull nodes');
cmp_ok($primary->safe_psql('postgres', q{SELECT free_nodes FROM bloofi_stats('t_f')}), '>', 0,
	'VACUUM freed the retired nodes');
check_replay('after merges');
$primary->safe_psql('postgres', "INSERT INTO t SELECT i, mk(i) FROM generate_series(20001, 22000) i");
$primary->safe_psql('postgres', 'VACUUM t');
check_replay('after inserts into merged nodes (reusing free ones)');
is($primary->safe_psql('postgres', q{SELECT bloofi_check('t_f')}), '', 'bloofi_check on the primary');

# ---- a wide SPARSE bottom node (small filters: lists position -> slots) ----
# its build, its rewrites by inserts (pending-list flushes and direct), its
# dead TIDs cleared by VACUUM, replayed on the standby
# (the probes up to twice the largest element the rows hold, 7,040: the
# ones above find no row but a rare false positive, whose share the
# absent half keeps)
my $sjoin = q{
	SELECT string_agg(p.x || ':' || ts.id, ',' ORDER BY p.x, ts.id)
	FROM probe p JOIN ts ON ts.f @> p.x WHERE p.x < 14080};
# the join $join through the index on the primary and the standby, and by a
# sequential scan on the standby: all equal, and rows found
sub check_standby_join
{
	my ($join, $what) = @_;
	$primary->wait_for_catchup($standby);
	my $on_primary = $primary->safe_psql('postgres', "SET enable_seqscan = off; SET enable_indexscan = off; $join");
	my $on_standby = $standby->safe_psql('postgres', "SET enable_seqscan = off; SET enable_indexscan = off; $join");
	my $seq_standby = $standby->safe_psql('postgres', "SET enable_bitmapscan = off; SET enable_indexscan = off; $join");
	ok(length($on_primary) > 100, "$what: lookups find rows");
	is($on_standby, $on_primary, "$what: standby index results equal the primary's");
	is($on_standby, $seq_standby, "$what: standby index results equal its sequential scan");
}
sub check_sparse { check_standby_join($sjoin, "sparse, $_[0]"); }
$primary->safe_psql('postgres', q{
	CREATE TABLE ts (id bigint, f bloomfilter);
	INSERT INTO ts SELECT i, bloom_from_array(ARRAY[i, i / 3]::bigint[], 1024, 3) FROM generate_series(1, 6000) i;
	CREATE INDEX ts_f ON ts USING bloofi (f);
});
is($primary->safe_psql('postgres', q{SELECT bottom_nodes, leaves FROM bloofi_stats('ts_f')}), '1|6000',
	'sparse: one wide bottom node');
check_sparse('after build');
$primary->safe_psql('postgres', q{
	INSERT INTO ts SELECT i, bloom_from_array(ARRAY[i, i / 3]::bigint[], 1024, 3) FROM generate_series(6001, 7000) i;
	VACUUM ts;
});
check_sparse('after pending-list inserts');
$primary->safe_psql('postgres', q{
	ALTER INDEX ts_f SET (fastupdate = off);
	DELETE FROM ts WHERE id % 4 = 0;
	VACUUM ts;
	INSERT INTO ts SELECT i, bloom_from_array(ARRAY[i]::bigint[], 1024, 3) FROM generate_series(7001, 7040) i;
});
check_sparse('after deletes, VACUUM and direct inserts');
is($primary->safe_psql('postgres', q{SELECT bloofi_check('ts_f')}), '', 'sparse: bloofi_check on the primary');

# filters too large for a pending page wait in the list as groups of parts
# (m = 433,039: 5,000 elements, ~15,000 set bits, several parts each), appended
# in one WAL record a part; the standby's lookups see each group whole, in the
# list and after VACUUM's flush
my $gjoin = q{
	SELECT string_agg(p.x || ':' || tg.id, ',' ORDER BY p.x, tg.id)
	FROM generate_series(0, 40000, 37) p(x) JOIN tg ON tg.f @> p.x::bigint};
sub check_groups { check_standby_join($gjoin, "groups, $_[0]"); }
$primary->safe_psql('postgres', q{
	CREATE TABLE tg (id bigint, f bloomfilter);
	INSERT INTO tg SELECT i, bloom_from_array(ARRAY[i, 20000 + i]::bigint[], 433039, 3) FROM generate_series(1, 200) i;
	CREATE INDEX tg_f ON tg USING bloofi (f);
	INSERT INTO tg SELECT 1000 + j, bloom_from_array(ARRAY(SELECT (g * 7 + j)::bigint
	                                                     FROM generate_series(1, 5000) g), 433039, 3)
	FROM generate_series(1, 3) j;
});
is($primary->safe_psql('postgres', q{SELECT pending FROM bloofi_stats('tg_f')}), '3',
	'groups: three large filters in the pending list, counted once each');
check_groups('in the pending list');
$primary->safe_psql('postgres', q{VACUUM tg});
is($primary->safe_psql('postgres', q{SELECT pending FROM bloofi_stats('tg_f')}), '0',
	'groups: flushed by VACUUM');
check_groups('after the flush');
is($primary->safe_psql('postgres', q{SELECT bloofi_check('tg_f')}), '', 'groups: bloofi_check on the primary');

$standby->stop;
$primary->stop;
done_testing();
