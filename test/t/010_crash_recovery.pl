# test/t/010_crash_recovery.pl
#   Filters survive a crash: store bloomfilter values of many sizes (from the
#   8-bit minimum to TOASTed multi-megabyte ones, sparse ones that TOAST
#   compresses and dense ones it stores out of line uncompressed), in a plain
#   and in a typmod bloomfilter(m, k) column, some written before the last
#   checkpoint and some after it (so WAL replay must restore them), commit,
#   stop the server with 'immediate' (no shutdown checkpoint: a crash), start
#   it again and check every value against what was recorded before the crash:
#   its exact text form (md5), bit count and parameters, the membership of
#   every element it was built from (no false negatives), that the typmod
#   still rejects other parameters, and that a transaction left open at the
#   crash is gone.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
$node->append_conf('postgresql.conf', "checkpoint_timeout = '30min'\nmax_wal_size = '1GB'");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION bloomsample');

# Each case: a filter of m bits and k hashes built from the integers
# [lo, lo + n) (hash family 'xxh3' or 'linear').  m = 2^22 and 2^24 with
# many elements are dense (stored out of line, barely compressible);
# m = 2^25 with few elements is sparse (compressed by TOAST).
my @cases = (
	# id, m, k, seed, hash, lo, n
	[ 1, 8, 1, 0, 'xxh3', 0, 1 ],
	[ 2, 64, 3, -7, 'xxh3', 100, 10 ],
	[ 3, 959, 7, 0, 'xxh3', 1000, 100 ],
	[ 4, 1000, 5, 42, 'linear', -500, 80 ],
	[ 5, 65536, 7, 1, 'xxh3', 5000, 6000 ],
	[ 6, 4194304, 5, 2, 'xxh3', 0, 400000 ],
	[ 7, 33554432, 3, 3, 'xxh3', 77, 2000 ],
	[ 8, 16777216, 4, -2147483648, 'linear', 9, 1500000 ],);

$node->safe_psql('postgres', q{
	CREATE TABLE filters (id int PRIMARY KEY, lo bigint, n bigint, f bloomfilter);
	CREATE TABLE typed (id int PRIMARY KEY, f bloomfilter(8192, 5));
});

# half of the rows before the checkpoint, half after (WAL replay restores them)
my $half = int(@cases / 2);
for my $i (0 .. $#cases)
{
	my ($id, $m, $k, $seed, $hash, $lo, $n) = @{ $cases[$i] };
	$node->safe_psql('postgres',
		"INSERT INTO filters SELECT $id, $lo, $n, bloom_agg(x, $m, $k, $seed, '$hash')
		   FROM generate_series(${lo}::bigint, $lo + $n - 1) x");
	$node->safe_psql('postgres', 'CHECKPOINT') if $i == $half - 1;
}
$node->safe_psql('postgres', q{
	INSERT INTO typed SELECT g, bloom_from_array(ARRAY(SELECT generate_series(g, g * 10)::bigint), 8192, 5)
	  FROM generate_series(1, 50) g;
	-- an update after the checkpoint: the new TOASTed version must win after replay
	UPDATE filters SET f = bloom_add(f, (-1)::bigint) WHERE id = 6;
});

# the storage really covers the interesting cases
my ($ext_dense, $compressed_sparse) = split /\|/, $node->safe_psql('postgres', q{
	SELECT (SELECT pg_column_size(f) FROM filters WHERE id = 6) > 400000,
	       (SELECT pg_column_size(f) < bloom_m(f) / 8 / 10 FROM filters WHERE id = 7)});
is($ext_dense, 't', 'dense 4 Mbit filter stored at full size (out of line)');
is($compressed_sparse, 't', 'sparse 32 Mbit filter compressed by TOAST');
my $toastrel = $node->safe_psql('postgres',
	q{SELECT reltoastrelid::regclass FROM pg_class WHERE relname = 'filters'});
cmp_ok($node->safe_psql('postgres', "SELECT count(DISTINCT chunk_id) FROM $toastrel"),
	'>=', 3, 'the large filters are stored out of line in the TOAST table');

# what every value must look like after the crash
my $fingerprint_sql = q{
	SELECT id, md5(f::text), bloom_popcount(f), bloom_m(f), bloom_k(f), bloom_seed(f), bloom_hash(f)
	FROM filters ORDER BY id};
my $typed_sql = q{SELECT count(*), string_agg(md5(f::text), ',' ORDER BY id) FROM typed};
my $before = $node->safe_psql('postgres', $fingerprint_sql);
my $typed_before = $node->safe_psql('postgres', $typed_sql);
is(scalar(split /\n/, $before), scalar(@cases), 'all filters stored');

# a transaction still open at the crash must leave no trace
my $open = $node->background_psql('postgres');
$open->query_safe('BEGIN');
$open->query_safe(q{INSERT INTO filters SELECT 99, 0, 10, bloom_agg(x, 64, 3) FROM generate_series(0, 9) x});
$open->query_safe(q{UPDATE typed SET f = bloom_add(f, 123456789::bigint) WHERE id = 1});

$node->stop('immediate');
$open->quit;
$node->start;

is($node->safe_psql('postgres', $fingerprint_sql), $before,
	'every filter identical after crash recovery (text md5, popcount, parameters)');
is($node->safe_psql('postgres', $typed_sql), $typed_before,
	'typmod column identical after crash recovery');
is($node->safe_psql('postgres', 'SELECT count(*) FROM filters WHERE id = 99'), '0',
	'uncommitted insert rolled back by recovery');

# no false negatives: every element each filter was built from is a member.
# The filter is read once (an InitPlan; the text round trip makes an in-memory
# copy, so a TOASTed value is not fetched again for every probe).
for my $c (@cases)
{
	my ($id, $m, $k, $seed, $hash, $lo, $n) = @$c;
	my $missing = $node->safe_psql('postgres',
		"SELECT count(*) FROM generate_series(${lo}::bigint, $lo + $n - 1) x
		  WHERE NOT (SELECT f::text::bloomfilter FROM filters WHERE id = $id) \@> x");
	is($missing, '0', "filter $id (m=$m, k=$k, $hash): all $n elements still members");
	# and the recovered value is exactly the filter rebuilt from its elements
	my $extra = $id == 6 ? "UNION ALL SELECT -1" : "";
	is($node->safe_psql('postgres',
		"SELECT f = (SELECT bloom_agg(x, $m, $k, $seed, '$hash')
		               FROM (SELECT generate_series(${lo}::bigint, $lo + $n - 1) $extra) s(x))
		   FROM filters WHERE id = $id"),
		't', "filter $id equals the filter rebuilt from its elements");
}
is($node->safe_psql('postgres', q{SELECT f @> (-1)::bigint FROM filters WHERE id = 6}), 't',
	'element added by the post-checkpoint update is a member');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM typed t, generate_series(t.id, t.id * 10) x WHERE NOT t.f @> x::bigint}),
	'0', 'typmod column: all elements still members');

# the typmod survived with the table definition and still constrains
is($node->safe_psql('postgres',
	q{SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'typed'::regclass AND attname = 'f'}),
	'bloomfilter(8192,5)', 'typmod kept');
my ($rc, $out, $err) = $node->psql('postgres', q{INSERT INTO typed VALUES (1000, bloom_empty(8192, 4))});
isnt($rc, 0, 'typmod column still rejects a filter with other parameters');
like($err, qr/bloomfilter\(8192,5\)/, 'typmod error names the column type');

# and the recovered values are fully usable
is($node->safe_psql('postgres', q{
	SELECT (SELECT bloom_union_agg(f) FROM typed)
	     = (SELECT bloom_agg(x::bigint, 8192, 5) FROM typed, generate_series(id, id * 10) x)}),
	't', 'union of recovered filters equals a filter rebuilt from scratch');

$node->stop;
done_testing();
