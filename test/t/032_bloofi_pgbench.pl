# test/t/032_bloofi_pgbench.pl
#   Concurrency: pgbench clients insert, delete, look up and VACUUM at the
#   same time on one bloofi-indexed table (a small tree so that writers
#   collide on the same nodes and slice pages).  Then bloofi_check
#   verifies every invariant against the table and lookups through the index
#   equal a sequential scan.  Lookups during the run check, in the same
#   snapshot, that the index finds the row a client just inserted.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloofiOracle;

my $node = bloofi_node('bloofi_pgbench', "autovacuum = off\nmax_connections = 20");
$node->safe_psql('postgres', q{
	CREATE FUNCTION mk(id bigint) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS
	  $$ SELECT bloom_from_array(ARRAY(SELECT 10 * id + j FROM generate_series(0, 9) j), 1024, 5) $$;
	CREATE TABLE t (id bigint, f bloomfilter);
	INSERT INTO t SELECT i, mk(i) FROM generate_series(1, 2000) i;
	CREATE INDEX t_f ON t USING bloofi (f) WITH (order = 2);
	CREATE TABLE probe AS SELECT x::bigint FROM generate_series(0, 100000, 7) x;
	-- insert a row and find it through the index in the same transaction
	CREATE FUNCTION ins_and_find(rid bigint) RETURNS void LANGUAGE plpgsql AS $$
	BEGIN
	    INSERT INTO t VALUES (rid, mk(rid));
	    SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off;
	    IF NOT EXISTS (SELECT 1 FROM t WHERE f @> (10 * rid + 3) AND t.id = rid) THEN
	        RAISE EXCEPTION 'row % just inserted not found through the index', rid;
	    END IF;
	END $$;
});

$node->pgbench(
	'-n -c 4 -j 2 -t 400',
	0,
	[qr{processed: 1600/1600}],
	[qr{^$}],
	'concurrent inserts, deletes, lookups and VACUUM',
	{
		'bloofi_ins@10' => q{
\set id random(2001, 10000)
SELECT ins_and_find(:id);
},
		'bloofi_del@4' => q{
\set id random(1, 10000)
DELETE FROM t WHERE id = :id;
},
		'bloofi_look@10' => q{
\set id random(1, 10000)
SET enable_seqscan = off;
SELECT count(*) FROM t WHERE f @> (10 * :id + 5)::bigint;
},
		'bloofi_vac@1' => q{
VACUUM t;
},
	});

is($node->safe_psql('postgres', q{SELECT bloofi_check('t_f')}), '',
	'bloofi_check passes after the concurrent run');
index_matches_seqscan($node, 't', 'SELECT x FROM probe', 500, 'after the concurrent run');

# VACUUM after the run leaves values exact and removes every dead leaf
$node->safe_psql('postgres', 'VACUUM t');
is($node->safe_psql('postgres', q{SELECT leaves = (SELECT count(*) FROM t) FROM bloofi_stats('t_f')}),
	't', 'after VACUUM the index holds exactly the live rows');
is($node->safe_psql('postgres', q{SELECT bloofi_check('t_f')}), '', 'bloofi_check after VACUUM');

$node->stop;
done_testing();
