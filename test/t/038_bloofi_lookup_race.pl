# test/t/038_bloofi_lookup_race.pl
#   A lookup that overlaps a split or a merge misses no row.  A lookup visits
#   an inner node in three reads, one page at a time and with no tree lock:
#   the header, the slices (which children match), then the matching slots'
#   references.  A split or merge switches the node's children in one record
#   (old slots cleared, new slots filled, their columns written just before);
#   a visit that tested the old columns and then read the new references
#   lost the moved children's leaves (found by test/t/036_bloofi_standby.pl
#   once, on a hot standby replaying churn).  The visit now compares the
#   header page's LSN before and after and visits the node again when a
#   record came between (bloofi_search, src/bloofi_scan.c).
#
#   The race is made certain with bloomsample.bloofi_visit_delay (a
#   developer setting: the lookup waits, as wait event PgSleep, between the
#   slices and the references of every inner node): a REPEATABLE READ
#   lookup of an element every row holds waits in the root of a two-level
#   tree while another session splits (inserts) or merges (VACUUM) its
#   children.  Its count must equal a sequential scan's in the same
#   snapshot, and the server's DEBUG1 line must say the root was visited
#   again.  For a logged and an unlogged index (whose pages get fake LSNs),
#   and for a lookup on a hot standby while replay splits.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('bloofi_race');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', "autovacuum = off\njit = off");
$node->start;
$node->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('bloofi_race_standby');
$standby->init_from_backup($node, 'bk', has_streaming => 1);
$standby->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION bloomsample;
	-- row id holds 0 (every row: a lookup of 0 reads every node) and
	-- 10 id .. 10 id + 9
	CREATE FUNCTION mk(id int) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS
	  $$ SELECT bloom_from_array(ARRAY[0]::bigint[] ||
	       ARRAY(SELECT 10 * id::bigint + j FROM generate_series(0, 9) j), 1536, 4) $$;
});

# one round: a table of $rows rows (after $prep), a lookup on $rnode (the
# primary or the standby) waiting in the root while $writer runs on the
# primary
sub race
{
	my ($label, $rnode, $persistence, $rows, $prep, $writer) = @_;

	$node->safe_psql('postgres', qq{
		DROP TABLE IF EXISTS t;
		CREATE $persistence TABLE t (id int PRIMARY KEY, f bloomfilter)
		  WITH (autovacuum_enabled = off);
		CREATE INDEX t_f ON t USING bloofi (f) WITH (order = 2, fastupdate = off);
		INSERT INTO t SELECT i, mk(i) FROM generate_series(1, $rows) i;
		$prep
	});
	is($node->safe_psql('postgres', q{SELECT height FROM bloofi_stats('t_f')}), '3',
		"$label: the tree is a root above bottom nodes above the leaves");
	my $retired0 = $node->safe_psql('postgres',
		q{SELECT retired_nodes + free_nodes FROM bloofi_stats('t_f')});

	$node->wait_for_catchup($standby) if $rnode == $standby;
	my $reader = $rnode->background_psql('postgres', on_error_stop => 1);
	# (each query its own timeout, not one for the session's life)
	$reader->set_query_timer_restart;
	my $pid = $reader->query_safe(q{
		SET log_statement = none;
		SET bloomsample.plan_probe = off;
		SET bloomsample.bloofi_visit_delay = '2s';
		SET enable_indexscan = off;
		SET enable_bitmapscan = off;
		SELECT pg_backend_pid();
	});
	like($reader->query_safe(q{EXPLAIN (COSTS OFF) SELECT count(*) FROM t WHERE bloom_contains(f, 0::bigint)}),
		qr/Seq Scan on t/, "$label: the oracle is a sequential scan");
	my $seqscan = $reader->query_safe(q{
		BEGIN ISOLATION LEVEL REPEATABLE READ;
		SELECT count(*) FROM t WHERE bloom_contains(f, 0::bigint);
		SET LOCAL enable_seqscan = off;
		SET LOCAL enable_bitmapscan = on;
	});
	like($reader->query_safe(q{EXPLAIN (COSTS OFF) SELECT count(*) FROM t WHERE f @> 0::bigint}),
		qr/Bitmap Index Scan on t_f/, "$label: the lookup uses the index");

	# the lookup, sent without waiting for its result (psql has read it when
	# it echoes the line before it); then the writer, while the lookup waits
	# in the root
	$reader->{stderr} = '';
	$reader->query_until(qr/lookup sent/,
		"SET client_min_messages = debug1;\n\\echo lookup sent\n"
		  . "SELECT 'index ' || count(*) FROM t WHERE f \@> 0::bigint;\n");
	ok( $rnode->poll_query_until('postgres',
			qq{SELECT wait_event = 'PgSleep' FROM pg_stat_activity WHERE pid = $pid}),
		"$label: the lookup waits in the root")
	  or diag($rnode->safe_psql('postgres',
			qq{SELECT state, wait_event_type, wait_event, query FROM pg_stat_activity WHERE pid = $pid}));
	$node->safe_psql('postgres', $writer);
	$node->wait_for_catchup($standby) if $rnode == $standby;
	cmp_ok($node->safe_psql('postgres',
			q{SELECT retired_nodes + free_nodes FROM bloofi_stats('t_f')}), '>', $retired0,
		"$label: the writer switched children of the root meanwhile");

	my $got = $reader->query_until(qr/index \d+/, '');
	like($got, qr/index $seqscan\b/,
		"$label: the lookup found the $seqscan rows its sequential scan found");
	like($reader->{stderr}, qr/changed during a lookup's visit: visited again/,
		"$label: the lookup saw the root change and visited it again");
	$reader->{stderr} = '';
	$reader->query('RESET client_min_messages');
	$reader->{stderr} = '';
	$reader->query_safe('COMMIT');
	$reader->quit;
	is($node->safe_psql('postgres', q{SELECT bloofi_check('t_f')}), '', "$label: bloofi_check");
}

# splits: 20 new rows overflow the bottom nodes (and the root)
my $splits = q{INSERT INTO t SELECT i, mk(i) FROM generate_series(101, 120) i};
race('splits', $node, '', 8, '', $splits);
race('splits, unlogged', $node, 'UNLOGGED', 8, '', $splits);
# merges: rows deleted before the lookup's snapshot leave bottom nodes
# under d leaves; VACUUM merges them
race('merges', $node, '', 16, 'DELETE FROM t WHERE id % 4 <> 0', 'VACUUM t');
# on a hot standby, where replay switches the children under the lookup
race('splits replayed on a standby', $standby, '', 8, '', $splits);

done_testing();
