# pg_upgrade across majors: a PostgreSQL 15 cluster holding bloomfilter
# columns, Bloofi indexes (one with a pending list not yet flushed) and
# BloomSampleTrees (full and pruned) is pg_upgrade'd to the major running this
# test (18 in CI: test/versions/run.sh), and then
#  - every lookup through each Bloofi index equals a sequential scan's, and
#    the answers before the upgrade; the planner uses the index; bloofi_check
#    passes; rows inserted after the upgrade are found;
#  - the trees are listed as before and answer as before: their image files
#    (pg_stat_tmp, which pg_upgrade does not carry) are built again at first use.
# BS_UPGRADE_FROM: the old major's installation (the directory holding bin/),
# with this tree's bloomsample installed into it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $from = $ENV{BS_UPGRADE_FROM};
plan skip_all => 'BS_UPGRADE_FROM (the old installation) is not set'
  unless defined $from && -x "$from/bin/pg_ctl";

my $old = PostgreSQL::Test::Cluster->new('old', install_path => $from);
my $new = PostgreSQL::Test::Cluster->new('new');
# the same data-checksum setting on both sides (18's initdb turns them on)
$old->init(extra => ['--data-checksums']);
$new->init(extra => ['--data-checksums']);
$old->start;

$old->safe_psql('postgres', q{
    CREATE EXTENSION bloomsample;
    CREATE TABLE site (id int PRIMARY KEY, f bloomfilter);
    INSERT INTO site SELECT i, bloom_from_array(ARRAY(SELECT 20 * i + j FROM generate_series(0, 19) j)::bigint[], 4096, 3)
    FROM generate_series(1, 3000) i;
    CREATE INDEX site_f ON site USING bloofi (f);
    -- dense filters, fastupdate: the last rows wait in the pending list
    CREATE TABLE dense (id int PRIMARY KEY, f bloomfilter);
    CREATE INDEX dense_f ON dense USING bloofi (f) WITH (order = 16, fastupdate = on);
    INSERT INTO dense SELECT i, bloom_from_array(ARRAY(SELECT (i * 7 + j * 131) % 20000 FROM generate_series(0, 199) j)::bigint[], 2048, 3)
    FROM generate_series(1, 370) i;
    ANALYZE site; ANALYZE dense;
    INSERT INTO dense SELECT i, bloom_from_array(ARRAY(SELECT (i * 7 + j * 131) % 20000 FROM generate_series(0, 199) j)::bigint[], 2048, 3)
    FROM generate_series(371, 400) i;
    SELECT bst_create('full1', 0, 50000, 8000, 3, 5);
    CREATE TABLE occ AS SELECT (x * 7919 % 1000000007)::bigint AS id FROM generate_series(1, 5000) x;
    SELECT bst_create_pruned('pr1', 'SELECT id FROM occ', 8000, 3, 5);
    CREATE VIEW qs AS
      SELECT bloom_agg(x, 8000, 3, 5) AS q FROM generate_series(0, 49999, 97) x
      UNION ALL
      SELECT bloom_agg(id, 8000, 3, 5) FROM (SELECT id FROM occ LIMIT 300) s;
});

# every probe's matching ids, through the plan the settings allow
sub lookups
{
	my ($node, $table, $hi, $scan) = @_;
	my $set = $scan eq 'index'
	  ? 'SET enable_seqscan = off;'
	  : 'SET enable_indexscan = off; SET enable_bitmapscan = off;';
	return $node->safe_psql('postgres', qq{$set
        SELECT string_agg(p || ':' || coalesce(ids, '-'), ' ' ORDER BY p)
        FROM (SELECT p, (SELECT string_agg(id::text, ',' ORDER BY id) FROM $table
                         WHERE f @> p::bigint) AS ids
              FROM generate_series(0, $hi, 7) p) s});
}
my $answers = q{
    SELECT string_agg(r::text, ',' ORDER BY r)
    FROM qs, LATERAL (SELECT bst_reconstruct('full1', q) AS r UNION ALL
                      SELECT bst_reconstruct('pr1', q)) z;
};
my $trees = q{SELECT string_agg(name || ':' || kind || ':' || ids, ' ' ORDER BY name) FROM bst_trees};

my %before;
for my $t (['site', 61000], ['dense', 20000])
{
	my ($table, $hi) = @$t;
	$before{$table} = lookups($old, $table, $hi, 'seq');
	is(lookups($old, $table, $hi, 'index'), $before{$table}, "$table: index = seq scan on the old major");
}
my $pending = $old->safe_psql('postgres', q{SELECT pending FROM bloofi_stats('dense_f')});
my $answers_before = $old->safe_psql('postgres', $answers);
my $trees_before = $old->safe_psql('postgres', $trees);
ok(length($answers_before) > 100, 'the trees answer on the old major');
my $version = $old->safe_psql('postgres', q{SELECT extversion FROM pg_extension WHERE extname = 'bloomsample'});
# This machine's PostgreSQL 15 build (Debian's 15.20) keeps a pg_attver entry in
# the options of every column, which the new major's pg_dump (run by pg_upgrade)
# dumps and its server rejects ("unrecognized parameter"), whatever the
# extension: an upgrade of any table fails on it.  Removed before the upgrade,
# in every database, where present (README, Installation).
for my $db ('template1', 'postgres')
{
	$old->safe_psql($db, q{
        UPDATE pg_attribute
        SET attoptions = nullif(ARRAY(SELECT o FROM unnest(attoptions) o WHERE o NOT LIKE 'pg_attver=%'), '{}')
        WHERE attoptions::text LIKE '%pg_attver=%'});
}
$old->stop;

# pg_upgrade, run where the new cluster's sockets go (it writes its logs there)
my $newbin = $new->config_data('--bindir');
command_ok(
	[
		"$newbin/pg_upgrade", '--no-sync',
		'-d', $old->data_dir, '-D', $new->data_dir,
		'-b', "$from/bin", '-B', $newbin,
		'-s', $new->host, '-p', $old->port, '-P', $new->port, '--copy'
	],
	'pg_upgrade from ' . $old->pg_version . ' to ' . $new->pg_version)
  or diag(join('', map { "---- $_\n" . slurp_file($_) }
		  glob($new->data_dir . '/pg_upgrade_output.d/*/log/*.log')));
$new->start;

is($new->safe_psql('postgres', q{SELECT extversion FROM pg_extension WHERE extname = 'bloomsample'}),
	$version, 'the extension keeps its version');
for my $t (['site', 61000], ['dense', 20000])
{
	my ($table, $hi) = @$t;
	is(lookups($new, $table, $hi, 'seq'), $before{$table}, "$table: seq scan answers as before the upgrade");
	is(lookups($new, $table, $hi, 'index'), $before{$table}, "$table: index lookups answer as before the upgrade");
	like($new->safe_psql('postgres', qq{SET enable_seqscan = off;
        EXPLAIN (COSTS OFF) SELECT id FROM $table WHERE f @> 4242::bigint}),
		qr/Index Scan on ${table}_f/, "$table: the planner uses the upgraded index");
	is($new->psql('postgres', qq{SELECT bloofi_check('${table}_f')}), 0, "$table: bloofi_check passes");
}
ok($pending > 0, "the pending list held $pending rows at the upgrade");
is($new->safe_psql('postgres', q{SELECT pending FROM bloofi_stats('dense_f')}), $pending,
	'the pending list is carried over');

# writes after the upgrade
$new->safe_psql('postgres', q{
    INSERT INTO site SELECT i, bloom_from_array(ARRAY(SELECT 20 * i + j FROM generate_series(0, 19) j)::bigint[], 4096, 3)
    FROM generate_series(3001, 3100) i;
    DELETE FROM site WHERE id % 10 = 0;
    VACUUM site;
});
is(lookups($new, 'site', 62100, 'index'), lookups($new, 'site', 62100, 'seq'),
	'site: index = seq scan after inserts, deletes and VACUUM on the new major');
is($new->psql('postgres', q{SELECT bloofi_check('site_f')}), 0, 'bloofi_check after the writes');

# trees: the same list and answers; their images were left behind and are built again
my $imgdir = $new->data_dir . '/pg_stat_tmp/bloomsample';
ok(!-d $imgdir || !glob("$imgdir/*.bst"), 'no tree image came across the upgrade');
is($new->safe_psql('postgres', $trees), $trees_before, 'bst_trees lists the trees as before');
is($new->safe_psql('postgres', $answers), $answers_before, 'the trees answer as before (images rebuilt)');
ok(scalar(my @imgs = glob("$imgdir/*.bst")) >= 2, 'their images were built again at first use');

$new->stop;
done_testing();
