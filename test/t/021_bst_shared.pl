# BloomSampleTree: one copy per cluster (shared image files).
#  - first use by 4 sessions at once builds the tree once (one "built into a
#    shared image" log line, one image file), all 4 map it (bst_info.shared)
#    and answer as the dictionary attack does;
#  - bst_extend and bst_drop / re-create in one session are seen by another
#    session at its next call, never a stale tree;
#  - beyond bloomsample.bst_shared_limit, images that no session maps are
#    removed, least recently mapped first, and rebuilt at their next use;
#  - a parallel plan over 3,000 filter rows returns the serial plan's result;
#  - image files of dropped databases and of trees no catalog holds, and dead
#    writers' temporary files, are removed at the next build;
#  - after a restart the image is reused (no rebuild) and answers the same;
#  - a streaming standby rebuilds the image from the replicated catalog rows
#    and sees the primary's bst_extend and bst_drop.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('bst_shared');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', qq{
max_worker_processes = 8
max_parallel_workers = 4
max_parallel_workers_per_gather = 2
});
$node->start;

# the trees are defined without building images (bst_shared off for the
# creating session), so that the first use below is the first build
$node->safe_psql('postgres', q{
    CREATE EXTENSION bloomsample;
    SET bloomsample.bst_shared = off;
    SELECT bst_create('f', 0, 600000, 40000, 3, 5);
    CREATE TABLE occ AS SELECT (x * 7919 % 1000000007)::bigint AS id FROM generate_series(1, 20000) x;
    SELECT bst_create_pruned('p', 'SELECT id FROM occ', 8000, 3, 5);
    CREATE TABLE qf AS
      SELECT g AS id, bloom_agg((hashint8(g * 100 + i) & 2147483647) % 600000, 40000, 3, 5) AS q
      FROM generate_series(1, 3000) g, generate_series(1, 12) i GROUP BY g;
    CREATE TABLE qp AS
      SELECT 1 AS id, bloom_agg(id, 8000, 3, 5) AS q FROM (SELECT id FROM occ LIMIT 400) s;
});
my $datadir = $node->data_dir;
my @images = glob("$datadir/pg_stat_tmp/bloomsample/*.bst");
is(scalar(@images), 0, 'no image before first use');

# ---------------------------------------------------------------------------
# first use by 4 sessions at once
# ---------------------------------------------------------------------------
my $answer_f = q{SELECT count(*) || ':' || sum(x) FROM qf, bst_reconstruct('f', q) x WHERE qf.id <= 40};
my $oracle_f = $node->safe_psql('postgres',
    q{SELECT count(*) || ':' || sum(x) FROM qf, bloom_dictionary_attack(q, 0, 600000) x WHERE qf.id <= 40});
my $log_offset = -s $node->logfile;
my @runs;
for my $i (1 .. 4)
{
    my ($out, $err) = ('', '');
    my $h = IPC::Run::start(
        [ 'psql', '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'),
          '-c', "$answer_f; SELECT shared, image_bytes > 0 FROM bst_info('f')" ],
        '>', \$out, '2>', \$err);
    push @runs, [ $h, \$out, \$err ];
}
my $i = 0;
for my $r (@runs)
{
    $i++;
    $r->[0]->finish;
    is(${ $r->[1] }, "$oracle_f\nt|t\n", "session $i: dictionary attack's answer, from the shared image");
    is(${ $r->[2] }, '', "session $i: no error");
}
my $log = slurp_file($node->logfile, $log_offset);
my @builds = ($log =~ /BloomSampleTree "f" built into a shared image/g);
is(scalar(@builds), 1, 'four concurrent first uses built the tree once');
@images = glob("$datadir/pg_stat_tmp/bloomsample/*.bst");
is(scalar(@images), 1, 'one image file');
my $image_bytes = -s $images[0];
is($node->safe_psql('postgres', q{SELECT shared, image_bytes FROM bst_info('f')}),
    "t|$image_bytes", 'bst_info reports the shared image and its size');

# ---------------------------------------------------------------------------
# extend and drop / re-create in one session, seen by another
# ---------------------------------------------------------------------------
my $reader = $node->background_psql('postgres', on_error_stop => 0);
my $count_p = q{SELECT count(*) FROM qp, bst_reconstruct('p', q)};
my $before = $reader->query_safe($count_p);
is($before, $node->safe_psql('postgres',
    q{SELECT count(*) FROM qp, occ WHERE qp.q @> occ.id}), 'pruned tree: the occupied ids q reports');
# new ids that the query filter holds: extending must make them appear
$node->safe_psql('postgres', q{
    CREATE TABLE more AS SELECT (x * 104729 % 1000000007)::bigint + 5000000000 AS id FROM generate_series(1, 300) x;
    UPDATE qp SET q = q | (SELECT bloom_agg(id, 8000, 3, 5) FROM more);
});
my $with_new = $node->safe_psql('postgres',
    q{SELECT count(*) FROM qp, (SELECT id FROM occ UNION SELECT id FROM more) o WHERE qp.q @> o.id});
isnt($reader->query_safe($count_p), $with_new, 'before bst_extend the new ids are not in the tree');
$node->safe_psql('postgres', q{SELECT bst_extend('p', ARRAY(SELECT id FROM more))});
is($reader->query_safe($count_p), $with_new, 'bst_extend in one session is seen by the other at its next call');
is($reader->query_safe(q{SELECT ids, shared FROM bst_info('p')}), '20300|t',
    'the other session maps the new generation');

$node->safe_psql('postgres', q{SELECT bst_drop('f')});
$reader->query(q{SELECT count(*) FROM qf, bst_reconstruct('f', q)});
like($reader->{stderr}, qr/BloomSampleTree "f" does not exist/, 'bst_drop is seen by the other session');
$reader->{stderr} = '';
ok(!-e $images[0], 'bst_drop removed the image file');
# re-created with other parameters: the other session uses the new tree
$node->safe_psql('postgres', q{SELECT bst_create('f', 0, 600000, 40000, 3, 6)});
$reader->query(q{SELECT count(*) FROM qf, bst_reconstruct('f', q) WHERE qf.id = 1});
like($reader->{stderr}, qr/does not match BloomSampleTree "f"/, 're-created tree (seed 6) seen: old filters rejected');
$reader->{stderr} = '';
$node->safe_psql('postgres', q{SELECT bst_drop('f'); SELECT bst_create('f', 0, 600000, 40000, 3, 5)});
is($reader->query_safe($answer_f), $oracle_f, 're-created tree answers as the dictionary attack');
$reader->quit;

# ---------------------------------------------------------------------------
# the space limit: images no backend maps go, least recently mapped first
# ---------------------------------------------------------------------------
sub image_of
{
    my ($tree) = @_;
    my $prefix = $node->safe_psql('postgres',
        qq{SELECT format('%s_%s_', oid, lpad(to_hex(hashtextextended('$tree', 0)), 16, '0'))
           FROM pg_database WHERE datname = 'postgres'});
    my @f = glob("$datadir/pg_stat_tmp/bloomsample/${prefix}*.bst");
    return scalar(@f);
}
my $holder = $node->background_psql('postgres');
$holder->query_safe(q{SELECT count(*) FROM bst_info('f')});
is(image_of('f') . image_of('p'), '11', 'images of f and p exist');
$node->safe_psql('postgres', q{SET bloomsample.bst_shared_limit = '1MB';
    SELECT bst_create('g', 0, 300000, 40000, 3, 5)});
is(image_of('f') . image_of('p') . image_of('g'), '101',
    'over the limit: the unmapped image of p removed, f (mapped by a session) and the new g kept');
$holder->quit;
$node->safe_psql('postgres', q{SET bloomsample.bst_shared_limit = '1MB';
    SELECT bst_create('h', 0, 300000, 40000, 3, 5)});
is(image_of('f') . image_of('g') . image_of('h'), '001', 'once nobody maps them, f and g are removed too');
is($node->safe_psql('postgres', $answer_f), $oracle_f, 'a removed image is rebuilt at the next use');
is(image_of('f'), 1, 'rebuilt image of f');
$node->safe_psql('postgres', q{SELECT bst_drop('g'); SELECT bst_drop('h')});

# ---------------------------------------------------------------------------
# parallel plan = serial plan
# ---------------------------------------------------------------------------
my $all_f = q{SELECT count(*) || ':' || sum(x) || ':' || sum(x * x % 1000003) FROM qf, bst_reconstruct('f', q) x};
my $par = q{SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
            SET max_parallel_workers_per_gather = 2;};
my $serial = $node->safe_psql('postgres', "SET max_parallel_workers_per_gather = 0; $all_f");
like($node->safe_psql('postgres', "$par EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $all_f"),
    qr/Workers Launched: [12]/, 'the plan runs bst_reconstruct in parallel workers');
is($node->safe_psql('postgres', "$par $all_f"), $serial, 'parallel reconstruction = serial');
is($node->safe_psql('postgres', "$par SELECT count(*) FROM qf, bst_sample('f', q, 3) x WHERE (SELECT q @> x)"),
    '9000', 'parallel sampling: 3 members per filter');
is($node->safe_psql('postgres',
    "$par SELECT count(*) FROM qf, bst_reconstruct_stats('f', q) s WHERE s.memberships > 0"),
    '3000', 'parallel reconstruct_stats');

# ---------------------------------------------------------------------------
# orphans go at the next build: images of a dropped database, images of
# trees the catalog no longer holds (the extension dropped and created
# again), temporary files of writers that died; a live writer's stays
# ---------------------------------------------------------------------------
sub files_of_db
{
    my ($oid, $suffix) = @_;
    return scalar(grep { /\Q$suffix\E$/ } glob("$datadir/pg_stat_tmp/bloomsample/${oid}_*"));
}
$node->safe_psql('postgres', 'CREATE DATABASE other');
$node->safe_psql('other', q{CREATE EXTENSION bloomsample; SELECT bst_create('o', 0, 100000, 4000, 3)});
my $other_oid = $node->safe_psql('postgres', q{SELECT oid FROM pg_database WHERE datname = 'other'});
is(files_of_db($other_oid, '.bst'), 1, 'database other has an image');
$node->safe_psql('postgres', 'CREATE DATABASE again');
$node->safe_psql('again', q{CREATE EXTENSION bloomsample; SELECT bst_create('old', 0, 100000, 4000, 3)});
my $again_oid = $node->safe_psql('postgres', q{SELECT oid FROM pg_database WHERE datname = 'again'});
$node->safe_psql('postgres', 'DROP DATABASE other');
$node->safe_psql('again', q{DROP EXTENSION bloomsample; CREATE EXTENSION bloomsample});
is(files_of_db($other_oid, '.bst') . files_of_db($again_oid, '.bst'), '11',
    'before the next build: the dropped database\'s and the dropped extension\'s images remain');
my $dead_pid = 4194000;
$dead_pid++ while (kill(0, $dead_pid) || !$!{ESRCH});
my ($postmaster_pid) = split /\n/, slurp_file("$datadir/postmaster.pid");
my $tmp = "$datadir/pg_stat_tmp/bloomsample/${again_oid}_0000000000000001_0000000000000002.bst";
append_to_file("$tmp.$dead_pid.tmp", 'partial');
append_to_file("$tmp.$postmaster_pid.tmp", 'partial');
$log_offset = -s $node->logfile;
$node->safe_psql('again', q{SELECT bst_create('new', 0, 100000, 4000, 3)});
is(files_of_db($other_oid, ''), 0, 'the dropped database\'s files are removed');
is(files_of_db($again_oid, '.bst'), 1, 'the catalog\'s tree keeps its image, the dropped tree\'s is removed');
ok(!-e "$tmp.$dead_pid.tmp" && -e "$tmp.$postmaster_pid.tmp",
    'a dead writer\'s temporary file is removed, a live one\'s kept');
like(slurp_file($node->logfile, $log_offset), qr/removed: its database or tree no longer exists/,
    'the removals are logged');
unlink "$tmp.$postmaster_pid.tmp";
is($node->safe_psql('again', q{SELECT count(*) FROM bst_info('new') WHERE shared}), '1',
    'the new tree is shared');
$node->safe_psql('postgres', 'DROP DATABASE again');

# ---------------------------------------------------------------------------
# restart: the image is reused
# ---------------------------------------------------------------------------
$node->restart;
$log_offset = -s $node->logfile;
is($node->safe_psql('postgres', $answer_f), $oracle_f, 'after restart: same answer');
$log = slurp_file($node->logfile, $log_offset);
unlike($log, qr/built into a shared image/, 'after restart: the image file is reused, not rebuilt');

# ---------------------------------------------------------------------------
# standby
# ---------------------------------------------------------------------------
$node->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('bst_standby');
$standby->init_from_backup($node, 'bk', has_streaming => 1);
# the images are a cache: the standby rebuilds them from the catalog rows
unlink glob($standby->data_dir . '/pg_stat_tmp/bloomsample/*.bst');
$standby->start;
is($standby->safe_psql('postgres', $answer_f), $oracle_f, 'standby: full tree answers');
is($standby->safe_psql('postgres', q{SELECT shared FROM bst_info('f')}), 't', 'standby: shared image');
$count_p = q{SELECT count(*) FROM qp, bst_reconstruct('p', q)};
is($standby->safe_psql('postgres', $count_p), $with_new, 'standby: pruned tree answers');
my $sreader = $standby->background_psql('postgres', on_error_stop => 0);
is($sreader->query_safe($count_p), $with_new, 'standby session uses the pruned tree');
$node->safe_psql('postgres', q{SELECT bst_extend('p', ARRAY[7000000000001, 7000000000002]);
    UPDATE qp SET q = q | (SELECT bloom_agg(x, 8000, 3, 5) FROM unnest(ARRAY[7000000000001, 7000000000002]::bigint[]) x)});
$node->wait_for_catchup($standby);
is($sreader->query_safe(q{SELECT ids FROM bst_info('p')}), '20302',
    'standby session sees the primary\'s bst_extend at its next call');
$node->safe_psql('postgres', q{SELECT bst_drop('p')});
$node->wait_for_catchup($standby);
$sreader->query(q{SELECT count(*) FROM bst_info('p')});
like($sreader->{stderr}, qr/BloomSampleTree "p" does not exist/, 'standby session sees the primary\'s bst_drop');
$sreader->quit;

$standby->stop;
$node->stop;
done_testing();
