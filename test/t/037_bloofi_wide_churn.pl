# test/t/037_bloofi_wide_churn.pl
#   Churn at every filter width (issue 33): one skewed column (set sizes
#   least(300, floor(2 / random())), ids floor(20000 * random())) stored at
#   m = 1,024, 65,536 and 433,039 (k = 3) under a Bloofi index with fast
#   update on (the default).  Six rounds, each updating a third of the rows
#   (one element added by bloom_add, the way a trigger keeps a filter
#   current) and then VACUUM: after every round the index stays within twice
#   the size of a fresh build of the same table, and at the end lookups
#   equal a sequential scan and bloofi_check is clean.  At the two large
#   widths the rows' nodes are SPARSE (the LISTED form) and the pending list
#   holds the updates as set positions: before issue 33 such a column grew
#   by the whole node on every update.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloofiOracle;

my $node = bloofi_node('bloofi_wide_churn', "autovacuum = off\nshared_buffers = 64MB");

sub sql { return $node->safe_psql('postgres', $_[0]); }

sql(q{
	SELECT setseed(0.37);
	CREATE TABLE sets AS
	  SELECT i AS id, ARRAY(SELECT floor(20000 * random())::bigint
	                        FROM generate_series(1, least(300, floor(2 / random()))::int + 0 * i)) AS ids
	  FROM generate_series(1, 2000) i;
});

for my $m (1024, 65536, 433039)
{
	my $t = "w$m";
	sql(qq{
		CREATE TABLE $t (id int PRIMARY KEY, f bloomfilter) WITH (autovacuum_enabled = off);
		INSERT INTO $t SELECT id, bloom_from_array(ids, $m, 3) FROM sets;
		CREATE INDEX ${t}_f ON $t USING bloofi (f);
	});
	my $built = sql("SELECT pg_relation_size('${t}_f')");
	my (@after, @fresh);
	for my $round (1 .. 6)
	{
		sql("UPDATE $t SET f = bloom_add(f, (100000 * $round + id)::bigint) WHERE id % 3 = $round % 3");
		sql("VACUUM $t");
		push @after, sql("SELECT pg_relation_size('${t}_f')");
		sql("CREATE INDEX ${t}_fresh ON $t USING bloofi (f)");
		push @fresh, sql("SELECT pg_relation_size('${t}_fresh')");
		sql("DROP INDEX ${t}_fresh");
	}
	note "m = $m: built $built bytes; after each round: @after; fresh builds: @fresh";
	my $worst = 0;
	$worst < $after[$_] / $fresh[$_] and $worst = $after[$_] / $fresh[$_] for 0 .. $#after;
	cmp_ok($worst, '<=', 2,
		"m = $m: after every round of updates and VACUUM the index is within 2x a fresh build (at most "
		  . sprintf('%.2f', $worst) . "x)");
	is(sql("SELECT bloofi_check('${t}_f')"), '', "m = $m: bloofi_check clean after the rounds");
	index_matches_seqscan($node, $t,
		"SELECT x::bigint AS x FROM generate_series(0, 19999, 29) x
		 UNION ALL SELECT (100000 * r + i)::bigint FROM generate_series(1, 6) r, generate_series(1, 2000, 97) i",
		20, "m = $m, after the rounds");
}

done_testing();
