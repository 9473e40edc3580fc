# test/t/035_bloofi_check.pl
#   bloofi_check accepts the slack that interrupted writes may leave (test
#   033) but still catches real damage: with the server stopped, pages of
#   copies of one index are overwritten on disk (a node's value, an inner
#   node's columns, a bottom node's leaves or a free slot's column, the
#   free-page map: blocks both free and in the tree, or owned by nothing),
#   and bloofi_check must name
#   each violation with ERRCODE_INDEX_CORRUPTED (XX002), without crashing;
#   REINDEX repairs every copy.  Also damaged SPARSE nodes and sparse
#   pending entries (m = 433,039).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloofiOracle;

# without data checksums, as initdb makes clusters before PostgreSQL 18 (18's
# turns them on): a damaged page must reach the index's own checks, which a
# checksum failure (XX001) on reading it would stop first
my $node = bloofi_node('bloofi_check', "autovacuum = off", no_data_checksums => 1);
my @names = qw(c_val c_col c_leaf c_free c_map_used c_map_lost c_intact);
$node->safe_psql('postgres', q{
	CREATE TABLE c (id int, f bloomfilter);
	INSERT INTO c SELECT i, bloom_from_array(ARRAY(SELECT 10 * i + j FROM generate_series(0, 9) j)::bigint[], 2048, 5)
	FROM generate_series(1, 3000) i;
} . join('', map { "CREATE INDEX $_ ON c USING bloofi (f) WITH (order = 4, fastupdate = off);\n" } @names));

# free pages in every index: a reader holding the indexes keeps VACUUM from
# truncating, and its newer snapshot lets VACUUM free the retired nodes
my $r = $node->background_psql('postgres');
$r->query_safe('BEGIN; SET enable_seqscan = off; SELECT count(*) FROM c WHERE f @> 5::bigint');
$node->safe_psql('postgres', 'UPDATE c SET f = bloom_add(f, -id::bigint) WHERE id % 3 = 0; VACUUM c');
$node->safe_psql('postgres', 'SELECT txid_current()');
$r->query_safe('COMMIT; BEGIN; SET enable_seqscan = off; SELECT count(*) FROM c WHERE f @> 5::bigint');
$node->safe_psql('postgres', 'VACUUM c');
$r->query_safe('COMMIT');
$r->quit;
for my $n (@names)
{
	is($node->safe_psql('postgres', "SELECT bloofi_check('$n')"), '', "$n: intact before the damage");
	cmp_ok($node->safe_psql('postgres', "SELECT free_pages FROM bloofi_stats('$n')"), '>', 0,
		"$n: has free pages");
}
my %path = map { $_ => $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$_')") } @names;
$node->stop;

# pages: the opaque area is the last 32 bytes; contents start at byte 24
my $BLCKSZ = 8192;
sub read_file { open my $fh, '<:raw', $_[0] or die; local $/; my $d = <$fh>; close $fh; return $d; }
sub write_file { open my $fh, '>:raw', $_[0] or die; print $fh $_[1]; close $fh; }
sub opaque
{
	my ($data, $blk) = @_;
	my ($node, $next, $nused, $nlive, $cap, $xid, $level, $flags, $kind, $id) =
	  unpack('V6 v4', substr($data, $blk * $BLCKSZ + $BLCKSZ - 32, 32));
	return { node => $node, level => $level, kind => $kind, flags => $flags, cap => $cap,
		nused => $nused };
}
# overwrite the contents (bytes 24 .. pd_lower) of block $blk with $byte
sub fill_page
{
	my ($data, $blk, $byte) = @_;
	my $lower = unpack('v', substr($$data, $blk * $BLCKSZ + 12, 2));
	substr($$data, $blk * $BLCKSZ + 24, $lower - 24) = chr($byte) x ($lower - 24);
}
# the first block of kind $kind whose node satisfies $want->(header opaque)
sub find_page
{
	my ($data, $kind, $want) = @_;
	for my $b (1 .. length($data) / $BLCKSZ - 1)
	{
		my $o = opaque($data, $b);
		next unless $o->{kind} == $kind;
		return $b if $kind == 6;
		my $h = opaque($data, $o->{node});
		return $b if $h->{kind} == 2 && $h->{node} == $o->{node} && $want->($h, $o);
	}
	die "no page of kind $kind";
}

my $root_of = sub {
	my ($data) = @_;
	return unpack('V', substr($data, 24 + 36, 4));	# BloofiMetaData.root
};
my %damage = (
	# the root's value loses its bits
	c_val => sub {
		my ($d) = @_;
		my $root = $root_of->($$d);
		fill_page($d, find_page($$d, 3, sub { $_[0]{node} == $root }), 0);
	},
	# an inner node's slice page loses its bits (columns of its children)
	c_col => sub {
		my ($d) = @_;
		fill_page($d, find_page($$d, 4, sub { $_[0]{level} > 0 && !($_[0]{flags} & 3) && $_[0]{node} == $root_of->($$d) }), 0);
	},
	# a bottom node's slice page loses its bits (its leaves' filters)
	c_leaf => sub {
		my ($d) = @_;
		fill_page($d, find_page($$d, 4, sub { $_[0]{level} == 0 && !($_[0]{flags} & 3) }), 0);
	},
	# a bottom node's free slot above its high-water mark gets bits in every
	# slice of the node's first slice page: a leaf put there would be matched
	# by them without a recheck (version 4's exact matches)
	c_free => sub {
		my ($d) = @_;
		my $h = find_page($$d, 2, sub { $_[0]{level} == 0 && !($_[0]{flags} & 3) && $_[0]{nused} < $_[0]{cap} });
		my $o = opaque($$d, $h);
		my $page_bytes = $BLCKSZ - 24 - 32;
		my $tid_pages = int(($o->{cap} + int($page_bytes / 6) - 1) / int($page_bytes / 6));
		my $value_pages = int((2048 / 8 + $page_bytes - 8) / ($page_bytes & ~7));	# m = 2,048
		my $slice_bytes = $o->{cap} / 8;
		my $sp0 = ($h + $tid_pages + $value_pages) * $BLCKSZ + 24;
		my $s = $o->{cap} - 1;
		for my $j (0 .. int($page_bytes / $slice_bytes) - 1)
		{
			my $at = $sp0 + $j * $slice_bytes + int($s / 8);
			substr($$d, $at, 1) = chr(ord(substr($$d, $at, 1)) | (1 << ($s % 8)));
		}
	},
	# every block marked free: the tree's blocks too
	c_map_used => sub { my ($d) = @_; fill_page($d, find_page($$d, 6, undef), 0xFF); },
	# no block marked free: the free ones belong to nothing
	c_map_lost => sub { my ($d) = @_; fill_page($d, find_page($$d, 6, undef), 0); },
);
for my $n (keys %damage)
{
	my $data = read_file($path{$n});
	$damage{$n}->(\$data);
	write_file($path{$n}, $data);
}
$node->start;

my %expect = (
	c_val => qr/Value of node \d+ lacks bits/,
	c_col => qr/Column \d+ of node \d+ lacks bits/,
	c_leaf => qr/Leaf of heap tuple \(\d+,\d+\) .* differs from its filter|lacks bits of live leaves/,
	c_free => qr/Free slot \d+ of node at block \d+ holds \d+ bits/,
	c_map_used => qr/Block \d+ is both .* and free/,
	c_map_lost => qr/Block \d+ belongs to no node, chain or free-page map/,
);
for my $n (sort keys %expect)
{
	my ($rc, $out, $err) = $node->psql('postgres',
		"\\set VERBOSITY verbose\nSELECT bloofi_check('$n')");
	isnt($rc, 0, "$n: bloofi_check fails");
	like($err, qr/XX002/, "$n: with ERRCODE_INDEX_CORRUPTED");
	like($err, $expect{$n}, "$n: naming the violation");
}
is($node->safe_psql('postgres', "SELECT bloofi_check('c_intact')"), '', 'the intact copy still passes');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is still up');

$node->safe_psql('postgres', "REINDEX INDEX $_") for keys %expect;
is($node->safe_psql('postgres', "SELECT bloofi_check('$_')"), '', "$_: REINDEX repairs it")
  for sort keys %expect;

# ---- an index written by 1.0: its chain of FREE nodes moves into the map ----
# (1.0 kept replaced nodes, once freed, on a chain of FREE nodes reused only
# by nodes of the same size; the free-page map replaces it.)  A retired node
# is turned into such a chain on disk, as 1.0 left it.
$node->safe_psql('postgres',
	'CREATE INDEX c_legacy ON c USING bloofi (f) WITH (order = 4, fastupdate = off)');
$r = $node->background_psql('postgres');
$r->query_safe('BEGIN; SET enable_seqscan = off; SELECT count(*) FROM c WHERE f @> 5::bigint');
$node->safe_psql('postgres', 'UPDATE c SET f = bloom_add(f, -2 * id::bigint) WHERE id % 3 = 1; VACUUM c');
$r->query_safe('COMMIT');
$r->quit;
my ($retired0) = $node->safe_psql('postgres', "SELECT retired_nodes FROM bloofi_stats('c_legacy')");
cmp_ok($retired0, '>', 0, "c_legacy: retired nodes to turn into 1.0's free chain ($retired0)");
my $lpath = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('c_legacy')");
$node->stop;
{
	my $data = read_file($lpath);
	# BloofiMetaData: retired_head at byte 64, freenode_head at 68 of the contents
	my $head = unpack('V', substr($data, 24 + 64, 4));
	my $hdr = $head * $BLCKSZ + $BLCKSZ - 32;
	my $next = unpack('V', substr($data, $hdr + 4, 4));
	substr($data, 24 + 64, 4) = pack('V', $next);		# off the retired chain
	substr($data, 24 + 68, 4) = pack('V', $head);		# the only FREE node
	substr($data, $hdr + 4, 4) = pack('V', 0xFFFFFFFF);	# next: none
	substr($data, $hdr + 26, 2) = pack('v', 2);			# flags: FREE
	write_file($lpath, $data);
}
$node->start;
is($node->safe_psql('postgres', "SELECT bloofi_check('c_legacy')"), '',
	"c_legacy: bloofi_check accepts 1.0's chain of FREE nodes");
my ($retired1, $freenodes1) = split /\|/,
  $node->safe_psql('postgres', "SELECT retired_nodes, free_nodes FROM bloofi_stats('c_legacy')");
is($retired1, $retired0 - 1, 'c_legacy: one node less on the retired chain');
cmp_ok($freenodes1, '>=', 1, 'c_legacy: bloofi_stats counts the FREE node');
$node->safe_psql('postgres', 'VACUUM c');
is($node->safe_psql('postgres', "SELECT bloofi_check('c_legacy')"), '',
	'c_legacy: bloofi_check clean after VACUUM');
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop;
is(unpack('V', substr(read_file($lpath), 24 + 68, 4)), 0xFFFFFFFF,
	"c_legacy: VACUUM emptied 1.0's chain of FREE nodes (into the map)");
$node->start;
is($node->safe_psql('postgres', "SELECT retired_nodes FROM bloofi_stats('c_legacy')"), '0',
	'c_legacy: and freed the retired nodes');

# the damaged copies in %$expect: bloofi_check fails with XX002 naming the
# damage; a lookup ($lookup) through the damaged index only is an error or a
# lossy answer, never a crash; the intact copy passes; REINDEX repairs each
sub expect_damage
{
	my ($expect, $names, $intact, $lookup) = @_;
	for my $n (sort keys %$expect)
	{
		my ($rc, $out, $err) = $node->psql('postgres',
			"\\set VERBOSITY verbose\nSELECT bloofi_check('$n')");
		isnt($rc, 0, "$n: bloofi_check fails");
		like($err, qr/XX002/, "$n: with ERRCODE_INDEX_CORRUPTED");
		like($err, $expect->{$n}, "$n: naming the damage");
		my $others = join(', ', grep { $_ ne $n } @$names);
		($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nBEGIN; DROP INDEX $others;
			SET LOCAL enable_seqscan = off; $lookup; ROLLBACK");
		ok($rc == 0 || $err =~ /XX002|invalid node/, "$n: a lookup is an error or an answer ($err)");
		is($node->safe_psql('postgres', 'SELECT 1'), '1', "$n: the server is still up after lookups");
	}
	is($node->safe_psql('postgres', "SELECT bloofi_check('$intact')"), '', "$intact: the intact copy still passes");
	$node->safe_psql('postgres', "REINDEX INDEX $_") for keys %$expect;
	is($node->safe_psql('postgres', "SELECT bloofi_check('$_')"), '', "$_: REINDEX repairs it")
	  for sort keys %$expect;
	return;
}

# ---- SPARSE bottom nodes (small sparse filters: lists position -> slots) ----
# A damaged list or header of a sparse node is XX002 for bloofi_check and for
# a lookup, never a crash or a read past the node; REINDEX repairs it.
my @snames = qw(s_head s_list s_intact);
$node->safe_psql('postgres', q{
	CREATE TABLE s (id int, f bloomfilter);
	INSERT INTO s SELECT i, bloom_from_array(ARRAY[i, i / 7]::bigint[], 1024, 3)
	FROM generate_series(1, 5000) i;
} . join('', map { "CREATE INDEX $_ ON s USING bloofi (f);\n" } @snames));
for my $n (@snames)
{
	is($node->safe_psql('postgres', "SELECT bloofi_check('$n')"), '', "$n: intact before the damage");
}
my %spath = map { $_ => $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$_')") } @snames;
$node->stop;
{
	my $data = read_file($spath{s_intact});
	my @sparse = grep { opaque($data, $_)->{kind} == 7 } 1 .. length($data) / $BLCKSZ - 1;
	cmp_ok(scalar(@sparse), '>', 0, 'the sparse filters are indexed in sparse nodes (' . scalar(@sparse) . ' pages)');
	my $h = opaque($data, opaque($data, $sparse[0])->{node});
	ok($h->{flags} & 8, 'whose header has the SPARSE flag');
}
my %sdamage = (
	# the first sparse page (the lists' header and offsets) zeroed
	s_head => sub { my ($d) = @_; fill_page($d, find_page($$d, 7, sub { 1 }), 0); },
	# the last sparse page (list entries) all ones: slots past the capacity
	s_list => sub {
		my ($d) = @_;
		my @p = grep { opaque($$d, $_)->{kind} == 7 } 1 .. length($$d) / $BLCKSZ - 1;
		fill_page($d, $p[-1], 0xFF);
	},
);
for my $n (keys %sdamage)
{
	my $data = read_file($spath{$n});
	$sdamage{$n}->(\$data);
	write_file($spath{$n}, $data);
}
$node->start;
my %sexpect = (
	s_head => qr/sparse slices' header is damaged/,
	s_list => qr/sparse slices/,
);
expect_damage(\%sexpect, \@snames, 's_intact', 'SELECT count(*) FROM s WHERE f @> 4997::bigint');

# ---- sparse pending entries (filters of m = 433,039 in the pending list) ----
# A pending entry whose length overruns its page, or whose position list is
# damaged, is XX002 for bloofi_check (and never a crash or an over-read for
# a lookup); REINDEX repairs it.
my @pnames = qw(p_len p_pos p_intact);
$node->safe_psql('postgres', q{
	CREATE TABLE p (id int, f bloomfilter);
	INSERT INTO p SELECT i, bloom_from_array(ARRAY[i, i + 1000]::bigint[], 433039, 3)
	FROM generate_series(1, 10) i;
} . join('', map { "CREATE INDEX $_ ON p USING bloofi (f) WITH (fastupdate = on);\n" } @pnames) . q{
	INSERT INTO p SELECT i, bloom_from_array(ARRAY[i, i + 1000]::bigint[], 433039, 3)
	FROM generate_series(11, 60) i;
});
for my $n (@pnames)
{
	is($node->safe_psql('postgres', "SELECT pending FROM bloofi_stats('$n')"), '50', "$n: 50 pending entries");
	is($node->safe_psql('postgres', "SELECT bloofi_check('$n')"), '', "$n: intact before the damage");
}
my %ppath = map { $_ => $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$_')") } @pnames;
$node->stop;
# the first pending page (kind 5); its first entry starts at byte 24: TID, form (bytes 6-7)
sub first_pending
{
	my ($data) = @_;
	for my $b (1 .. length($data) / $BLCKSZ - 1)
	{
		return $b if opaque($data, $b)->{kind} == 5;
	}
	die 'no pending page';
}
my %pdamage = (
	# a sparse form whose length runs past the page
	p_len => sub { my ($d) = @_; substr($$d, first_pending($$d) * $BLCKSZ + 24 + 6, 2) = pack('v', 0x8000 | 0x7FF0); },
	# the first entry's position list (after its 5-byte head) all ones
	p_pos => sub {
		my ($d) = @_;
		my $at = first_pending($$d) * $BLCKSZ + 24;
		my $len = unpack('v', substr($$d, $at + 6, 2)) & 0x7FFF;
		substr($$d, $at + 8 + 5, $len - 5) = chr(0xFF) x ($len - 5);
	},
);
for my $n (keys %pdamage)
{
	my $data = read_file($ppath{$n});
	my $at = first_pending($data) * $BLCKSZ + 24;
	ok(unpack('v', substr($data, $at + 6, 2)) & 0x8000, "$n: the entries are sparse");
	$pdamage{$n}->(\$data);
	write_file($ppath{$n}, $data);
}
$node->start;
my %pexpect = (
	p_len => qr/damaged pending entry in block \d+: entries overrun the page/,
	p_pos => qr/damaged pending entry for heap tuple/,
);
expect_damage(\%pexpect, \@pnames, 'p_intact', 'SELECT count(*) FROM p WHERE f @> 1::bigint');

$node->stop;
done_testing();
