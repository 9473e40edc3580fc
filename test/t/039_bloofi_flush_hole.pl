# test/t/039_bloofi_flush_hole.pl
#   A pending-list flush stopped between the TIDs it wrote into a SPARSE
#   bottom node's holes and the node's rewrite (a cancel, a crash) leaves a
#   state that lookups answer right and bloofi_check accepts.
#
#   VACUUM takes a dead leaf's bits out of the values above its node (pass
#   2) and then invalidates its TID (pass 3); a SPARSE node keeps the leaf's
#   positions in its lists behind the invalid TID until it is rewritten.  An
#   insert writes its leaves' TIDs first, into the holes first, then ORs
#   their bits down the path, then rewrites the node with their lists; so a
#   flush stopped after the TIDs has live leaves (of the flushing chain)
#   whose slots still hold the vacated leaves' positions, bits the node's
#   value lacks.  The leaves are found through the flushing chain, and the
#   next flush rewrites the node.  bloofi_check used to object ("Value of
#   node ... lacks bits of its children": once in CI after 030's crash, and
#   in a loop of crashes under 030's workload).
#
#   The stop is made certain with bloomsample.bloofi_write_delay (a
#   developer setting: the writer waits, as wait event PgSleep, after it
#   wrote new leaves' TIDs): a statement_timeout cancels the flush there, or
#   the server is stopped (immediate) while it waits.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloofiOracle;

my $node = bloofi_node('bloofi_flush_hole', "autovacuum = off");
$node->safe_psql('postgres', q{
	-- row id holds [10 id, 10 id + 10): 30 bits of 433,039, so the bulk
	-- build makes wide SPARSE bottom nodes
	CREATE FUNCTION mkw(id bigint) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS
	  $$ SELECT bloom_from_array(ARRAY(SELECT 10 * id + j FROM generate_series(0, 9) j), 433039, 3) $$;
	CREATE TABLE h (id bigint, f bloomfilter);
	INSERT INTO h SELECT i, mkw(i) FROM generate_series(1, 2000) i;
	CREATE INDEX h_f ON h USING bloofi (f);
	CREATE TABLE probe AS SELECT x::bigint FROM generate_series(0, 60000, 3) x;
});
# (more than 2d leaves under an unsaturated value: SPARSE, docs/bloofi.md)
is($node->safe_psql('postgres',
		q{SELECT leaves = 2000 AND leaves > 2 * "order" * bottom_nodes FROM bloofi_stats('h_f')}), 't',
	'wide bottom nodes');

# holes in the nodes: 200 rows deleted and vacuumed; then 150 entries
# waiting in the pending list (wide filters: a flush comes at 4,096 entries,
# and from VACUUM, which flushes first), ids $first ..
sub holes_and_pending
{
	my ($del, $first) = @_;
	my $last = $first + 149;
	$node->safe_psql('postgres', qq{
		DELETE FROM h WHERE $del;
		VACUUM h;
		INSERT INTO h SELECT i, mkw(i) FROM generate_series($first, $last) i;
	});
	is($node->safe_psql('postgres', q{SELECT pending, flushing FROM bloofi_stats('h_f')}), '150|0',
		"150 entries pending after the holes ($del)");
	is($node->safe_psql('postgres', q{SELECT bloofi_check('h_f')}), '', 'bloofi_check before the flush');
	return;
}

# the state the stopped flush left: the 150 entries in the flushing chain,
# lookups right, bloofi_check satisfied; then VACUUM finishes the flush
sub check_stopped_flush
{
	my ($what, $first) = @_;
	my $last = $first + 149;
	is($node->safe_psql('postgres', q{SELECT pending, flushing FROM bloofi_stats('h_f')}), '150|150',
		"$what: the flush was stopped half-way (the entries in the flushing chain)");
	is($node->safe_psql('postgres', q{SELECT bloofi_check('h_f')}), '',
		"$what: bloofi_check accepts the state");
	is($node->safe_psql('postgres', qq{SET enable_seqscan = off;
			SELECT count(*) FROM h WHERE id BETWEEN $first AND $last AND f \@> (10 * id + 3)}), '150',
		"$what: every committed new row found through the index");
	index_matches_seqscan($node, 'h', 'SELECT x FROM probe', 1000, $what);
	$node->safe_psql('postgres', 'VACUUM h');
	is($node->safe_psql('postgres', q{SELECT pending, flushing FROM bloofi_stats('h_f')}), '0|0',
		"$what: VACUUM finished the flush");
	is($node->safe_psql('postgres', q{SELECT bloofi_check('h_f')}), '',
		"$what: bloofi_check after VACUUM");
	index_matches_seqscan($node, 'h', 'SELECT x FROM probe', 1000, "$what, after VACUUM");
	return;
}

# 1. a cancel: statement_timeout fires while VACUUM's flush waits after the
# TIDs
holes_and_pending('id % 10 = 0', 5001);
my ($ret, $stdout, $stderr) = $node->psql('postgres', q{
	SET bloomsample.bloofi_write_delay = '3s';
	SET statement_timeout = '1s';
	VACUUM h;
});
like($stderr, qr/canceling statement due to statement timeout/,
	"VACUUM's flush was cancelled while it waited after the TIDs");
check_stopped_flush('cancelled flush', 5001);

# 2. a crash: the server stops (immediate) while the flush waits
holes_and_pending('id % 10 = 1', 6001);
my $writer = $node->background_psql('postgres', on_error_stop => 0);
my $pid = $writer->query_safe(q{
	SET bloomsample.bloofi_write_delay = '60s';
	SELECT pg_backend_pid();
});
# (sent without waiting for it: psql has read it when it echoes the line before)
$writer->query_until(qr/vacuum sent/, "\\echo vacuum sent\nVACUUM h;\n");
ok( $node->poll_query_until('postgres',
		qq{SELECT wait_event = 'PgSleep' FROM pg_stat_activity WHERE pid = $pid}),
	'the flush waits after the TIDs')
  or diag($node->safe_psql('postgres',
		qq{SELECT state, wait_event_type, wait_event, query FROM pg_stat_activity WHERE pid = $pid}));
# (the flush's records are in the WAL buffers, its transaction not
# committed: another transaction's commit makes them durable)
$node->safe_psql('postgres', 'CREATE TABLE wal_mark (x int)');
$node->stop('immediate');
eval { $writer->quit; };
$node->start;
check_stopped_flush('flush stopped by a crash', 6001);

done_testing();
