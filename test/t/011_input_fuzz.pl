# test/t/011_input_fuzz.pl
#   Deterministic fuzzing of the bloomfilter input functions.
#
#   Text: several hundred mutations (truncation, deletion, insertion, field
#   values at and beyond their limits, hash names, hex length/case/tail bits,
#   reordering, whitespace, chains of these) of valid text forms.  Binary:
#   several hundred payloads (random bytes, valid payloads with mutated header
#   fields, lengths and bits), each loaded through bloomfilter_recv by a real
#   COPY ... (FORMAT binary) of a one-row file.  Every input runs inside a
#   PL/pgSQL exception block; afterwards each outcome is checked against an
#   independent oracle written here in Perl from the documented formats:
#     - input invalid per the format   -> rejected with SQLSTATE class 22
#       (0A000 only for an unsupported scheme version);
#     - input valid and canonical      -> accepted, its text form equals the
#       input (text) / the Perl rendering of the payload (binary), bloomfilter_send
#       gives the payload back, and x::text::bloomfilter = x;
#     - valid but not canonical (leading zeros, upper-case hex, surrounding
#       whitespace) -> either outcome, and round-trips if accepted.
#   The server must never crash.  Also a binary COPY round trip (TO then FROM)
#   of a table of valid filters, like postgresql-hll's binary COPY tests.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use InputFuzz;

srand(20261122);    # deterministic: Perl's rand is drand48 on every platform

my ($node, $dir) = fuzz_node('fuzz');

my $MAX_M = 2**31;

# ---------------------------------------------------------------------------
# the oracle: the documented formats, rewritten here
# ---------------------------------------------------------------------------

sub nbytes { my ($m) = @_; return int(($m + 7) / 8); }

# bits at positions >= m (in the last byte) are zero
sub tail_clear
{
	my ($m, $bytes) = @_;
	return 1 if $m % 8 == 0 || length($bytes) == 0;
	return (ord(substr($bytes, -1)) >> ($m % 8)) == 0;
}

# 'valid' (canonical), 'either' (valid but not canonical) or 'invalid'
sub text_verdict
{
	my ($s) = @_;
	my $quirk = 0;
	my $t = $s;
	$quirk = 1 if $t =~ s/^[ \t\n]+//;
	$quirk = 1 if $t =~ s/[ \t\n]+$//;
	return 'invalid'
	  unless $t =~ /^m=(-?\d+),k=(-?\d+),seed=(-?\d+),hash=([a-z0-9]+),v=(-?\d+):([0-9a-fA-F]*)$/;
	my ($m, $k, $seed, $hash, $v, $hex) = ($1, $2, $3, $4, $5, $6);
	for my $num ($m, $k, $seed, $v)
	{
		(my $digits = $num) =~ s/^-//;
		return 'invalid' if length($digits) > 12;
		$quirk = 1 if $digits =~ /^0\d/ || $num eq '-0';
	}
	return 'invalid' if $m < 8 || $m > $MAX_M;
	return 'invalid' if $k < 1 || $k > 32;
	return 'invalid' if $seed < -2**31 || $seed > 2**31 - 1;
	return 'invalid' if $hash ne 'xxh3' && $hash ne 'linear';
	return 'invalid' if $v != 1;
	return 'invalid' if length($hex) != 2 * nbytes($m);
	return 'invalid' unless tail_clear($m, pack('H*', $hex));
	$quirk = 1 if $hex =~ /[A-F]/;
	return $quirk ? 'either' : 'valid';
}

# binary: version u8, hash u8, k u8, flags u8, seed int32, m uint32 (network
# order), then ceil(m/8) bytes.  Returns the expected text form, or undef.
sub binary_expected_text
{
	my ($p) = @_;
	return undef if length($p) < 12;
	my ($ver, $hash, $k, $flags, $seed, $m) = unpack('C C C C l> N', $p);
	my $bits = substr($p, 12);
	return undef if $ver != 1 || $hash > 1 || $k < 1 || $k > 32 || $flags != 0;
	return undef if $m < 8 || $m > $MAX_M || length($bits) != nbytes($m);
	return undef unless tail_clear($m, $bits);
	return sprintf('m=%u,k=%d,seed=%d,hash=%s,v=1:%s',
		$m, $k, $seed, $hash ? 'linear' : 'xxh3', unpack('H*', $bits));
}

# ---------------------------------------------------------------------------
# valid seeds: from the server (real filters) and built here
# ---------------------------------------------------------------------------

sub random_bits
{
	my ($m, $density) = @_;
	my $bytes = join '', map { chr(rand() < $density ? rint(256) : 0) } 1 .. nbytes($m);
	if ($m % 8 && length $bytes)
	{
		substr($bytes, -1, 1) = chr(ord(substr($bytes, -1)) & ((1 << ($m % 8)) - 1));
	}
	return $bytes;
}

sub render_text
{
	my ($m, $k, $seed, $hash, $bits) = @_;
	return "m=$m,k=$k,seed=$seed,hash=$hash,v=1:" . unpack('H*', $bits);
}

my @text_seeds = split /\n/, $node->safe_psql('postgres', q{
	SELECT bloom_from_array(ARRAY[1, 2, 3]::bigint[], 8, 1)::text
	UNION ALL SELECT bloom_from_array(ARRAY(SELECT generate_series(1, 20))::bigint[], 64, 3, -5)::text
	UNION ALL SELECT bloom_from_array(ARRAY['a', 'b', 'c'], 100, 4, 7, 'linear')::text
	UNION ALL SELECT bloom_from_array(ARRAY(SELECT generate_series(1, 50))::bigint[], 959, 7)::text
	UNION ALL SELECT bloom_empty(171, 32, -2147483648)::text
	UNION ALL SELECT bloom_empty(8, 1)::text});
for (1 .. 6)
{
	my $m = pick(8, 9, 15, 16, 17, 63, 64, 65, 127, 200, 1000);
	push @text_seeds,
	  render_text($m, 1 + rint(32), pick(0, 1, -1, 2147483647, -2147483648, rint(100000)),
		pick('xxh3', 'linear'), random_bits($m, 0.5));
}

# ---------------------------------------------------------------------------
# text mutations
# ---------------------------------------------------------------------------

my @chars = split //, "0123456789abcdefxyzABCDEF,:=- \t\n;|\\\"'{}()+.";
my @num_values = (0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, -1, -8, 255, 256,
	2147483647, 2147483648, 2147483649, 4294967295, 4294967296,
	999999999999, 9999999999999, '', '-', '00064', '+64', ' 64', '6 4', '0x40', '1e3', '-0');
my @hash_values = ('xxh3', 'linear', 'XXH3', 'xxh', 'xxh33', 'lin', '', 'md5', 'xxh3 ', 'linear2');

sub mutate_text
{
	my ($s) = @_;
	my $len = length $s;
	my $op = rint(14);
	my $pos = rint($len + 1);
	if ($op == 0) { return substr($s, 0, rint($len)); }                         # truncate
	if ($op == 1 && $len) { substr($s, rint($len), 1) = ''; return $s; }         # delete a char
	if ($op == 2) { substr($s, $pos, 0) = pick(@chars); return $s; }           # insert a char
	if ($op == 3 && $len) { substr($s, rint($len), 1) = pick(@chars); return $s; }    # replace a char
	if ($op == 4)                                                              # a field value
	{
		my $f = pick('m', 'k', 'seed', 'v');
		my $val = pick(@num_values);
		$s =~ s/(^|,)$f=-?\d*([,:])/$1$f=$val$2/;
		return $s;
	}
	if ($op == 5) { my $h = pick(@hash_values); $s =~ s/hash=[a-z0-9]*/hash=$h/; return $s; }
	if ($op == 6)                                                              # flip a hex digit
	{
		if ($s =~ /:([0-9a-f]+)$/)
		{
			my $at = $-[1] + rint(length $1);
			substr($s, $at, 1) = pick(split //, '0123456789abcdef');
		}
		return $s;
	}
	if ($op == 7) { return $s . pick('0', '00', 'f', 'ff', 'g', ' ', "\n", 'x'); }  # append
	if ($op == 8) { return substr($s, 0, $len - 1 - rint(2)); }                 # drop the last hex digits
	if ($op == 9) { $s =~ s/:([0-9a-f]+)$/':' . uc($1)/e; return $s; }           # upper-case hex
	if ($op == 10) { $s =~ s/[0-9a-f]$/f/; return $s; }                          # set high bits of the last byte
	if ($op == 11) { $s =~ s/^(m=[^,]*),(k=[^,]*),/$2,$1,/; return $s; }        # reorder fields
	if ($op == 12) { return pick(' ', "\t", "\n", '  ') . $s . pick('', ' ', "\n", "\t"); }
	return $s . ',' . pick(@text_seeds);                                         # two values
}

my @text_cases = mutated_cases(600, \&mutate_text, \@text_seeds, 3);

# ---------------------------------------------------------------------------
# binary payloads
# ---------------------------------------------------------------------------

sub payload
{
	my ($ver, $hash, $k, $flags, $seed, $m, $bits) = @_;
	return pack('C C C C l> N', $ver, $hash, $k, $flags, $seed, $m) . $bits;
}

my @bin_seeds;
for (1 .. 12)
{
	my $m = pick(8, 9, 16, 63, 64, 65, 100, 959, 1000, 4096, 5003);
	push @bin_seeds, payload(1, rint(2), 1 + rint(32), 0,
		pick(0, -1, 7, 2147483647, -2147483648), $m, random_bits($m, pick(0, 0.1, 0.5, 1)));
}

sub mutate_binary
{
	my ($p) = @_;
	my $op = rint(10);
	my $len = length $p;
	if ($op == 0) { return join '', map { chr(rint(256)) } 1 .. rint(48); }    # random bytes
	if ($op == 1) { return substr($p, 0, rint($len)); }                         # truncate
	if ($op == 2 && $len)                                                       # flip a bit
	{
		my $at = rint($len < 12 || rand() < 0.5 ? $len : 12);
		substr($p, $at, 1) = chr(ord(substr($p, $at, 1)) ^ (1 << rint(8)));
		return $p;
	}
	if ($op == 3) { return $p . join '', map { chr(rint(256)) } 1 .. 1 + rint(3); }   # extra bytes
	if ($op == 4 && $len >= 12)                                                 # a header byte field
	{
		my $at = rint(4);
		substr($p, $at, 1) = chr(pick(0, 1, 2, 31, 32, 33, 128, 255));
		return $p;
	}
	if ($op == 5 && $len >= 12)                                                 # m at its limits
	{
		substr($p, 8, 4) = pack('N', pick(0, 7, 8, 9, 64, 65, 2**31, 2**31 + 1, 2**32 - 1, 1000000));
		return $p;
	}
	if ($op == 6 && $len >= 12) { substr($p, 4, 4) = pack('N', rint(2**32)); return $p; }   # seed
	if ($op == 7 && $len > 12) { substr($p, -1, 1) = chr(255); return $p; }             # tail bits
	if ($op == 8) { return substr($p, 0, 12); }                                          # header only
	return $p;
}

my @bin_cases = mutated_cases(360, \&mutate_binary, \@bin_seeds, 2);

# ---------------------------------------------------------------------------
# run everything inside the server, then check every outcome against the oracle
# ---------------------------------------------------------------------------

run_type_cases(node => $node, dir => $dir, type => 'bloomfilter', col => 'f',
	text => \@text_cases, binary => \@bin_cases);
check_alive($node);
check_type_outcomes(
	node              => $node,
	text              => \@text_cases,
	binary            => \@bin_cases,
	text_verdict      => \&text_verdict,
	text_state_ok     => sub { $_[0] =~ /^22/ || ($_[0] eq '0A000' && $_[1] =~ /scheme version/) },
	text_state_what   => 'class 22',
	binary_expected   => \&binary_expected_text,
	send_ok           => sub { $_[0] eq unpack('H*', $_[1]) },
	send_what         => 'send gives back different bytes',
	binary_state_ok   => sub { $_[0] =~ /^22/ },
	binary_state_what => 'class 22',
	min_binary_accepted => 20);

# ---------------------------------------------------------------------------
# typmod on the binary path
# ---------------------------------------------------------------------------
write_copy_file("$dir/typmod.copy", payload(1, 0, 4, 0, 0, 64, "\0" x 8));
my ($rc, $stdout, $stderr) = $node->psql('postgres', qq{
	CREATE TABLE typed (f bloomfilter(64, 3));
	COPY typed FROM '$dir/typmod.copy' (FORMAT binary)});
like($stderr, qr/bloomfilter\(64,3\)/, 'binary COPY into a typmod column checks m and k');

# ---------------------------------------------------------------------------
# binary COPY round trip of valid filters (TO, then FROM)
# ---------------------------------------------------------------------------
$node->safe_psql('postgres', qq{
	CREATE TABLE orig (id int, f bloomfilter);
	INSERT INTO orig
	SELECT g, bloom_from_array(ARRAY(SELECT generate_series(g, g * 37)::bigint),
	                           (ARRAY[8, 9, 64, 100, 959, 4096, 65536, 1048576])[1 + g % 8],
	                           1 + g % 32, g * 1000 - 50000, (ARRAY['xxh3', 'linear'])[1 + g % 2])
	FROM generate_series(1, 100) g;
	INSERT INTO orig VALUES (101, NULL), (102, bloom_empty(8, 1)),
	       (103, bloom_fold(bloom_from_array(ARRAY(SELECT generate_series(1, 10000))::bigint[], 1024, 8), 4));
	COPY orig TO '$dir/orig.copy' (FORMAT binary);
	CREATE TABLE copied (id int, f bloomfilter);
	COPY copied FROM '$dir/orig.copy' (FORMAT binary);
	COPY orig TO '$dir/orig.txt';
	CREATE TABLE copied_text (id int, f bloomfilter);
	COPY copied_text FROM '$dir/orig.txt';
});
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM orig o FULL JOIN copied c USING (id)
	WHERE o.f IS DISTINCT FROM c.f OR o.f::text IS DISTINCT FROM c.f::text}),
	'0', 'binary COPY round trip keeps every filter (and NULL) identical');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM orig o FULL JOIN copied_text c USING (id)
	WHERE o.f IS DISTINCT FROM c.f OR o.f::text IS DISTINCT FROM c.f::text}),
	'0', 'text COPY round trip keeps every filter identical');
is($node->safe_psql('postgres', q{SELECT count(*) FROM copied WHERE f IS NOT NULL}), '102',
	'all filters copied');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM copied, generate_series(id, id * 37) x WHERE id <= 100 AND bloom_m(f) <= 4096 AND NOT f @> x::bigint}),
	'0', 'copied filters still contain their elements');

is($node->safe_psql('postgres', 'SELECT 1'), '1', 'server alive at the end');
$node->stop;
done_testing();
