# test/t/BloofiOracle.pm
#   The oracle of the Bloofi TAP tests: the rows a join of probe elements
#   with a filter table finds through the bloofi index (a bitmap scan) are
#   exactly the rows a sequential scan finds with bloom_contains; and the
#   node these tests start (bloofi_node).
package BloofiOracle;

use strict;
use warnings;
use Exporter 'import';
use Test::More;
use PostgreSQL::Test::Cluster;

our @EXPORT = qw(index_matches_seqscan bloofi_node);

# bloofi_node($name, $conf, %init): a started cluster named $name, initdb'd
# with the options %init of PostgreSQL::Test::Cluster's init, the settings
# $conf (postgresql.conf lines) appended, with the extension created
sub bloofi_node
{
	my ($name, $conf, %init) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%init);
	$node->append_conf('postgresql.conf', $conf);
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION bloomsample');
	return $node;
}

# index_matches_seqscan($node, $table, $probe_query, $min_rows, $what):
# $probe_query yields the elements (column x, bigint); $table has columns id
# and f with a bloofi index on f.  Two checks: the index finds more than
# $min_rows (element, id) pairs, and the index's pairs and the sequential
# scan's pairs are the same multiset.
sub index_matches_seqscan
{
	my ($node, $t, $probe_query, $min_rows, $what) = @_;
	my $res = $node->safe_psql('postgres', qq{
		CREATE TEMP TABLE oracle_probe AS SELECT x::bigint AS x FROM ($probe_query) q;
		SET enable_seqscan = off; SET enable_indexscan = off;
		CREATE TEMP TABLE vi AS SELECT p.x, $t.id FROM oracle_probe p JOIN $t ON $t.f @> p.x;
		SET enable_seqscan = on; SET enable_bitmapscan = off;
		CREATE TEMP TABLE vs AS SELECT p.x, $t.id FROM oracle_probe p JOIN $t ON bloom_contains($t.f, p.x);
		SELECT (SELECT count(*) FROM vi) || ' ' ||
		       ((SELECT count(*) FROM (SELECT * FROM vi EXCEPT ALL SELECT * FROM vs) a) +
		        (SELECT count(*) FROM (SELECT * FROM vs EXCEPT ALL SELECT * FROM vi) b))});
	my ($n, $diff) = split / /, $res;
	cmp_ok($n, '>', $min_rows, "$what: lookups find rows ($n)");
	is($diff, '0', "$what: index results equal sequential scan results");
	return;
}

1;
