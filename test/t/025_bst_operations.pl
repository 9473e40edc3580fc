# BloomSampleTree images under production conditions: out of base backups
# (a restored backup rebuilds them at first use), and never written when
# they would leave less than bloomsample.bst_disk_reserve free on their
# volume (the tree is built in the backend instead, with a NOTICE), so that
# a concurrent writer on the same volume never runs out of space because of
# the cache.
#
# The volume part needs a small volume: test/run_all.sh (as root) mounts a
# 96 MB tmpfs and passes it in BS_SMALL_VOLUME; without it, that part is
# skipped and the reserve is checked against the real volume only.
use strict;
use warnings;
use File::Find;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# bytes under dir, without pg_wal (whose segments depend on WAL timing)
sub dir_bytes
{
    my ($dir) = @_;
    my $bytes = 0;
    find(
        {
            wanted => sub {
                if ($File::Find::name =~ m{/pg_wal(/|$)}) { $File::Find::prune = 1; return; }
                $bytes += -s $_ if -f $_;
            },
            no_chdir => 1
        },
        $dir);
    return $bytes;
}

my $node = PostgreSQL::Test::Cluster->new('operations');
$node->init(allows_streaming => 1);
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION bloomsample');

# ---------------------------------------------------------------------------
# base backups skip the images
# ---------------------------------------------------------------------------
$node->backup('before');
my $before = dir_bytes($node->backup_dir . '/before');
$node->safe_psql('postgres', q{SELECT bst_create('big', 0, 10000000, 132933, 3)});
my $image = $node->safe_psql('postgres', q{SELECT image_bytes FROM bst_info('big') WHERE shared});
cmp_ok($image, '>', 100_000_000, "a tree over 10^7 ids has a shared image of $image bytes");
$node->backup('after');
my $after = dir_bytes($node->backup_dir . '/after');
my $grown = $after - $before;
cmp_ok($grown, '<', 10 * 1024 * 1024,
    "pg_basebackup with the tree's image is within 10 MB of one without (grew by $grown bytes)");
ok(!-e $node->backup_dir . '/after/pg_bloomsample', 'no image directory of 1.1 in the backup');

my $restored = PostgreSQL::Test::Cluster->new('restored');
$restored->init_from_backup($node, 'after');
$restored->start;
my $query = q{SELECT string_agg(x::text, ',' ORDER BY x)
              FROM bst_reconstruct('big', bloom_from_array(ARRAY[7, 4242, 9999999]::bigint[], 132933, 3)) x};
my $want = $node->safe_psql('postgres', q{
    SELECT string_agg(x::text, ',' ORDER BY x)
    FROM bloom_dictionary_attack(bloom_from_array(ARRAY[7, 4242, 9999999]::bigint[], 132933, 3), 0, 10000000) x});
is($restored->safe_psql('postgres', $query), $want,
    'the restored cluster rebuilds the image at first use and answers as the dictionary attack');
is($restored->safe_psql('postgres', q{SELECT shared FROM bst_info('big')}), 't',
    'the restored cluster has its own shared image again');
$restored->stop;

# ---------------------------------------------------------------------------
# the disk reserve, against the real volume: a reserve larger than any disk
# ---------------------------------------------------------------------------
$node->safe_psql('postgres', q{SELECT bst_create('reserved', 0, 100000, 4096, 3)});
my ($ret, $stdout, $stderr) = $node->psql('postgres', q{
    SET bloomsample.bst_disk_reserve = '1000TB';
    SET client_min_messages = notice;
    SELECT bst_drop('reserved');
    SELECT bst_create('reserved', 0, 100000, 4096, 3);
    SELECT shared FROM bst_info('reserved');
    SELECT string_agg(x::text, ',') FROM bst_reconstruct('reserved', bloom_from_array(ARRAY[77]::bigint[], 4096, 3)) x
      WHERE x = 77});
is($ret, 0, 'a tree whose image would eat into the reserve is still created');
like($stderr, qr/NOTICE:  BloomSampleTree "reserved" is built in this backend only: its image would leave less than the disk reserve free/,
    'a NOTICE says why it is not shared');
like($stderr, qr/HINT:  .*bloomsample.bst_disk_reserve/, 'and how to change it');
like($stdout, qr/^f\n77$/m, 'built in the backend, it answers');
$node->safe_psql('postgres', 'CREATE ROLE plain LOGIN');
# the library is loaded (by a call) before the SET, as in any session that uses trees
($ret, $stdout, $stderr) = $node->psql('postgres',
    q{SELECT bloom_empty(64, 1) IS NOT NULL; SET bloomsample.bst_disk_reserve = 0},
    extra_params => [ '-U', 'plain' ]);
like($stderr, qr/permission denied to set parameter "bloomsample.bst_disk_reserve"/,
    'only a superuser changes the reserve');

# ---------------------------------------------------------------------------
# a small volume shared by the images and a writer's tablespace
# ---------------------------------------------------------------------------
SKIP:
{
    my $vol = $ENV{BS_SMALL_VOLUME};
    skip 'BS_SMALL_VOLUME (a small mounted volume) not given', 6
      unless $vol && -d $vol && -w $vol;
    $vol = "$vol/run$$";    # this run's own directories on the volume
    mkdir $vol;
    mkdir "$vol/images";
    mkdir "$vol/ts";
    $node->safe_psql('postgres', qq{
        SELECT bloom_empty(64, 1) IS NOT NULL;
        ALTER SYSTEM SET bloomsample.bst_image_directory = '$vol/images';
        SELECT pg_reload_conf()});
    $node->safe_psql('postgres', qq{CREATE TABLESPACE small LOCATION '$vol/ts'});
    $node->safe_psql('postgres', q{CREATE TABLE w (id int, pad text) TABLESPACE small});
    my $df = sub { my $o = `df -Pk '$vol'`; my @f = split /\s+/, (split /\n/, $o)[1]; return $f[3] * 1024; };
    my $free0 = $df->();
    note "small volume: $free0 bytes free";

    # a writer filling most of the volume while trees are built
    my $writer = $node->background_psql('postgres', on_error_stop => 0);
    $writer->query_until(qr/started/, q{\echo started
DO $$
BEGIN
  FOR i IN 1 .. 60 LOOP
    INSERT INTO w SELECT g, repeat('x', 900) FROM generate_series(1, 1000) g;
    PERFORM pg_sleep(0.02);
  END LOOP;
END $$;
\echo writer-done
});
    # an image of ~90 MB cannot fit beside the writer and the reserve: built in the backend
    my ($r, $o, $e) = $node->psql('postgres', q{
        SET client_min_messages = notice;
        SELECT bst_create('huge', 0, 5000000, 132933, 3);
        SELECT shared FROM bst_info('huge')});
    is($r, 0, 'the tree whose image does not fit is created');
    like($o, qr/^f$/m, 'built in the backend');
    like($e, qr/image would leave less than the disk reserve free/, 'with the NOTICE');
    my $done = $writer->query_until(qr/writer-done/, '');
    unlike($writer->{stderr}, qr/ERROR/, 'the concurrent writer never failed')
      or diag($writer->{stderr});
    $writer->quit;
    # a small tree's image fits and is written to the volume
    $node->safe_psql('postgres', q{SELECT bst_create('small_tree', 0, 20000, 1024, 3)});
    is($node->safe_psql('postgres', q{SELECT shared FROM bst_info('small_tree')}), 't',
        'an image that leaves the reserve free is written');
    my @files = glob("$vol/images/*.bst");
    ok(scalar(@files) >= 1, 'into bloomsample.bst_image_directory');
}

$node->stop;
done_testing();
