# BloomSampleTree persistence and concurrency:
#  - trees (full and pruned, extended) survive a restart and answer the same;
#  - pg_dump dumps the catalog tables, and a restored database has the trees;
#  - two sessions creating the same name at once end with one tree and a
#    clear "already exists" error for the loser.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('bst');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
    CREATE EXTENSION bloomsample;
    SELECT bst_create('full1', 0, 50000, 8000, 3, 5);
    CREATE TABLE occ AS SELECT (x * 7919 % 1000000007)::bigint AS id FROM generate_series(1, 5000) x;
    SELECT bst_create_pruned('pr1', 'SELECT id FROM occ', 8000, 3, 5);
    SELECT bst_extend('pr1', ARRAY(SELECT (x * 104729 % 1000000007)::bigint FROM generate_series(1, 500) x));
    CREATE VIEW qs AS
      SELECT bloom_agg(x, 8000, 3, 5) AS q FROM generate_series(0, 49999, 97) x
      UNION ALL
      SELECT bloom_agg(id, 8000, 3, 5) FROM (SELECT id FROM occ LIMIT 300) s;
});

my $answers = q{
    SELECT string_agg(r::text, ',' ORDER BY r)
    FROM qs, LATERAL (SELECT bst_reconstruct('full1', q) AS r UNION ALL
                      SELECT bst_reconstruct('pr1', q)) z;
};
my $trees = q{SELECT string_agg(name || ':' || kind || ':' || ids, ' ' ORDER BY name) FROM bst_trees};
my $before = $node->safe_psql('postgres', $answers);
my $trees_before = $node->safe_psql('postgres', $trees);
ok(length($before) > 100, 'trees answer before the restart');
is($trees_before, 'full1:full:50000 pr1:pruned:5500', 'bst_trees lists both trees');

$node->restart;
is($node->safe_psql('postgres', $trees), $trees_before, 'bst_trees after restart');
is($node->safe_psql('postgres', $answers), $before, 'same reconstructions after restart');
# the dictionary attack agrees after the restart too
is($node->safe_psql('postgres', q{
    SELECT bool_and((SELECT array_agg(x) FROM bst_reconstruct('full1', q) x)
                  = (SELECT array_agg(x ORDER BY x) FROM bloom_dictionary_attack(q, 0, 50000) x))
    FROM qs}), 't', 'full tree = dictionary attack after restart');

# pg_dump dumps the trees (extension configuration tables)
my $dump = $node->basedir . '/bst.sql';
$node->command_ok([ 'pg_dump', '-d', $node->connstr('postgres'), '-f', $dump ], 'pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('restored'), '-f', $dump ],
    'restore');
is($node->safe_psql('restored', $trees), $trees_before, 'restored database has the trees');
is($node->safe_psql('restored', $answers), $before, 'restored trees answer the same');

# concurrent creation of the same name: one tree, a clear error for the loser
my $a = $node->background_psql('postgres');
my $b = $node->background_psql('postgres', on_error_stop => 0);
$a->query_safe('BEGIN');
$a->query_safe(q{SELECT bst_create('race', 0, 20000, 4000, 3)});
$b->query_until(qr/sent/, "\\echo sent\nSELECT bst_create('race', 0, 20000, 4000, 3);\n");
ok($node->poll_query_until('postgres',
    q{SELECT count(*) > 0 FROM pg_locks WHERE NOT granted}), 'second creator waits for the first');
$a->query_safe('COMMIT');
my $out = $b->query(q{SELECT 'after'});
like($b->{stderr}, qr/BloomSampleTree "race" already exists/, 'loser gets "already exists"');
$a->quit;
$b->quit;
is($node->safe_psql('postgres', q{SELECT count(*) FROM bst_trees WHERE name = 'race'}), '1', 'one tree');
is($node->safe_psql('postgres', q{SELECT ids FROM bst_info('race')}), '20000', 'the tree works');

$node->stop;
done_testing();
