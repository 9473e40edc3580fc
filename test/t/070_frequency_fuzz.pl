# test/t/070_frequency_fuzz.pl
#   Deterministic fuzzing of the countmin and topk input functions, with the
#   harness of 011_input_fuzz.pl: mutated text forms go through a PL/pgSQL
#   exception block each, mutated binary payloads through a real
#   COPY ... (FORMAT binary) of a one-row file.
#   countmin: every outcome is checked against an oracle written here from the
#   documented formats (README "Frequencies: countmin and topk"):
#     - invalid per the format -> rejected with SQLSTATE class 22 (0A000 only
#       for an unsupported scheme version);
#     - valid and canonical    -> accepted, printed back identically, and its
#       binary form is the payload (binary);
#     - valid, not canonical (leading zeros) -> either, round-trips if accepted.
#   topk (whose validity depends on the sketch's estimates of hashed keys):
#   the unmutated values are accepted, every rejection is class 22, every
#   accepted value round-trips through text and binary.  The server must
#   never crash.
use strict;
use warnings;
use Math::BigInt;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use InputFuzz;

srand(20261126);

my ($node, $dir) = fuzz_node('freqfuzz');

my $INT64_MAX = Math::BigInt->new('9223372036854775807');

# ---------------------------------------------------------------------------
# the countmin oracle
# ---------------------------------------------------------------------------

# counters: list of Math::BigInt; undef unless every row sums to one total in range
sub rows_ok
{
	my ($w, $d, @c) = @_;
	my $first;
	for my $r (0 .. $d - 1)
	{
		my $sum = Math::BigInt->new(0);
		$sum += $c[ $r * $w + $_ ] for 0 .. $w - 1;
		return 0 if $sum > $INT64_MAX;
		$first //= $sum;
		return 0 if $sum != $first;
	}
	return 1;
}

sub params_ok
{
	my ($w, $d, $seed) = @_;
	return $w >= 1 && $w <= 2**24 && $d >= 1 && $d <= 32 && $w * $d <= 2**24
	  && $seed >= -2**31 && $seed < 2**31;
}

# 'valid', 'either' or 'invalid'; 'version' for an unknown scheme
sub cms_text_verdict
{
	my ($s) = @_;
	return 'invalid' unless $s =~ /\Aw=(-?\d+),d=(-?\d+),seed=(-?\d+),v=(-?\d+):(.*)\z/s;
	my ($w, $d, $seed, $v, $body) = ($1, $2, $3, $4, $5);
	my $quirk = 0;
	for my $num ($w, $d, $seed, $v)
	{
		(my $digits = $num) =~ s/^-//;
		return 'invalid' if length($digits) > 19;
		$quirk = 1 if $digits =~ /^0\d/ || $num eq '-0';
	}
	return 'invalid' if Math::BigInt->new($v) != 1 && !params_ok($w, $d, $seed);
	return 'version' if $v != 1;
	return 'invalid' unless params_ok($w, $d, $seed);
	my @rows = split /;/, $body, -1;
	return 'invalid' if @rows != $d;
	my @c;
	for my $row (@rows)
	{
		my @f = split /,/, $row, -1;
		return 'invalid' if @f != $w;
		for (@f)
		{
			return 'invalid' unless /\A\d{1,19}\z/;
			my $x = Math::BigInt->new($_);
			return 'invalid' if $x > $INT64_MAX;
			$quirk = 1 if /^0\d/;
			push @c, $x;
		}
	}
	return 'invalid' unless rows_ok($w, $d, @c);
	return $quirk ? 'either' : 'valid';
}

sub cms_render
{
	my ($w, $d, $seed, @c) = @_;
	return "w=$w,d=$d,seed=$seed,v=1:"
	  . join(';', map { my $r = $_; join(',', @c[ $r * $w .. $r * $w + $w - 1 ]) } 0 .. $d - 1);
}

# binary: version u8, flags u8, reserved u16, seed i32, w u32, d u32, counters i64
sub cms_binary_expected_text
{
	my ($p) = @_;
	return undef if length($p) < 16;
	my ($ver, $flags, $res, $seed, $w, $d) = unpack('C C n l> N N', $p);
	return undef if $ver != 1 || $flags != 0 || $res != 0 || !params_ok($w, $d, 0);
	my $body = substr($p, 16);
	return undef if length($body) != 8 * $w * $d;
	my @c = map { Math::BigInt->new($_) } unpack('q>*', $body);
	return undef if grep { $_ < 0 } @c;
	return undef unless rows_ok($w, $d, @c);
	return cms_render($w, $d, $seed, @c);
}

# ---------------------------------------------------------------------------
# seeds: real sketches and top-k values from the server, and built here
# ---------------------------------------------------------------------------
my @cms_seeds = split /\n/, $node->safe_psql('postgres', q{
	SELECT cms_agg(x, 4, 2)::text FROM generate_series(1, 20) x
	UNION ALL SELECT cms_agg(x % 3, 7, 3, -5)::text FROM generate_series(1, 100) x
	UNION ALL SELECT cms_empty(1, 1)::text
	UNION ALL SELECT cms_add(cms_empty(3, 2, 2147483647), 1, 9223372036854775807)::text
	UNION ALL SELECT cms_agg(md5(x::text), 16, 4)::text FROM generate_series(1, 50) x});
for (1 .. 4)
{
	my ($w, $d) = (1 + rint(6), 1 + rint(4));
	my @c = (0) x ($w * $d);
	for (1 .. rint(30))    # each add touches one counter per row, as the sketch does
	{
		my $n = rint(1000);
		$c[ $_ * $w + rint($w) ] += $n for 0 .. $d - 1;
	}
	push @cms_seeds, cms_render($w, $d, pick(0, -1, 77, -2147483648), @c);
}

my @topk_seeds = split /\n/, $node->safe_psql('postgres', q{
	SELECT topk_agg((x % 5)::text, 3, 4, 2)::text FROM generate_series(1, 60) x
	UNION ALL SELECT topk_agg(x % 7, 2, 8, 1, 9)::text FROM generate_series(1, 70) x
	UNION ALL SELECT topk_agg('Zürich'::text, 1, 2, 1)::text
	UNION ALL SELECT topk_agg(decode('00ff', 'hex'), 4, 3, 2)::text});

# ---------------------------------------------------------------------------
# text mutations (as in 011_input_fuzz.pl, with this format's fields)
# ---------------------------------------------------------------------------
my @chars = split //, "0123456789abcdefxyz,:;|=- \t\n\\'\"";
my @num_values = (0, 1, 2, 7, 31, 32, 33, -1, 4096, 16777216, 16777217, 2147483647,
	2147483648, -2147483649, 9223372036854775807, '9223372036854775808', '', '-', '007', '+1', '-0');

sub mutate_text
{
	my ($s) = @_;
	my $len = length $s;
	my $op = rint(12);
	my $m = char_mutation($s, $op, @chars);
	return $m if defined $m;
	if ($op == 4)
	{
		my $f = pick('w', 'd', 'seed', 'v', 'k');
		my $val = pick(@num_values);
		$s =~ s/(^|,)$f=-?\d*([,:])/$1$f=$val$2/;
		return $s;
	}
	if ($op == 5)                                   # change one counter
	{
		my @pos;
		push @pos, [ $-[0], $+[0] - $-[0] ] while $s =~ /(?<=[:;,])\d+(?=[,;|]|$)/g;
		if (@pos)
		{
			my $p = pick(@pos);
			substr($s, $p->[0], $p->[1]) = pick(0, 1, 2, 1000, '9223372036854775807', '00', '-1');
		}
		return $s;
	}
	if ($op == 6) { return $s . pick('0', ',0', ';0', ' ', "\n", '|', ',1:0:'); }
	if ($op == 7) { $s =~ s/;/,/; return $s; }            # merge two rows
	if ($op == 8) { $s =~ s/,(\d+)(;|$)/$2/; return $s; }  # drop a counter
	if ($op == 9) { return pick(' ', "\n") . $s; }
	if ($op == 10) { $s =~ s/([0-9a-f])(,|$)/f$2/; return $s; }   # a hex digit of an item
	return $s . pick(@cms_seeds);
}

my @cms_cases = mutated_cases(500, \&mutate_text, \@cms_seeds, 3);
my @topk_cases = mutated_cases(300, \&mutate_text, \@topk_seeds, 2);

# ---------------------------------------------------------------------------
# binary payloads
# ---------------------------------------------------------------------------
sub cms_payload
{
	my ($ver, $flags, $res, $seed, $w, $d, @c) = @_;
	return pack('C C n l> N N', $ver, $flags, $res, $seed, $w, $d) . pack('q>*', @c);
}

my @bin_seeds;
for (1 .. 10)
{
	my ($w, $d) = (1 + rint(9), 1 + rint(5));
	my @c = (0) x ($w * $d);
	for (1 .. rint(20))
	{
		my $n = pick(1, 5, 100000, 2**40);
		$c[ $_ * $w + rint($w) ] += $n for 0 .. $d - 1;
	}
	push @bin_seeds, cms_payload(1, 0, 0, pick(0, -1, 5, 2147483647), $w, $d, @c);
}

sub mutate_binary
{
	my ($p) = @_;
	my $op = rint(8);
	my $len = length $p;
	if ($op == 0) { return join '', map { chr(rint(256)) } 1 .. rint(64); }
	if ($op == 1) { return substr($p, 0, rint($len)); }
	if ($op == 2 && $len)
	{
		my $at = rint($len);
		substr($p, $at, 1) = chr(ord(substr($p, $at, 1)) ^ (1 << rint(8)));
		return $p;
	}
	if ($op == 3) { return $p . pack('q>', pick(0, 1, -1)); }
	if ($op == 4 && $len >= 16) { substr($p, rint(4), 1) = chr(pick(0, 1, 2, 255)); return $p; }
	if ($op == 5 && $len >= 16)
	{
		substr($p, pick(8, 12), 4) = pack('N', pick(0, 1, 2, 33, 2**24, 2**24 + 1, 2**32 - 1));
		return $p;
	}
	if ($op == 6 && $len >= 24)    # a counter set negative or to a big value
	{
		my $n = int(($len - 16) / 8);
		substr($p, 16 + 8 * rint($n), 8) = pack('q>', pick(-1, 1, 2**62));
		return $p;
	}
	return $p;
}

my @bin_cases = mutated_cases(300, \&mutate_binary, \@bin_seeds, 2);

# ---------------------------------------------------------------------------
# run everything inside the server
# ---------------------------------------------------------------------------
for my $t ([ 'cms', \@cms_cases ], [ 'topk', \@topk_cases ])
{
	my ($name, $cases) = @$t;
	write_text_cases("$dir/$name.tsv", $cases, ':encoding(UTF-8)');
}
for my $i (0 .. $#bin_cases)
{
	write_copy_file("$dir/bin_$i.copy", $bin_cases[$i]);
}
# topk binary payloads: the seeds' own, mutated
my @topk_bin_seeds = map { pack('H*', $_) } split /\n/, $node->safe_psql('postgres', q{
	SELECT encode(topk_send(topk_agg((x % 5)::text, 3, 4, 2)), 'hex') FROM generate_series(1, 60) x
	UNION ALL SELECT encode(topk_send(topk_agg(x % 7, 2, 8, 1, 9)), 'hex') FROM generate_series(1, 70) x});
my @topk_bin_cases = mutated_cases(150, \&mutate_binary, \@topk_bin_seeds, 2);
for my $i (0 .. $#topk_bin_cases)
{
	write_copy_file("$dir/tbin_$i.copy", $topk_bin_cases[$i]);
}

$node->safe_psql('postgres', qq{
	CREATE TABLE cms_cases (id int, input text);
	COPY cms_cases FROM '$dir/cms.tsv';
	CREATE TABLE topk_cases (id int, input text);
	COPY topk_cases FROM '$dir/topk.tsv';
	CREATE TABLE text_out (kind text, id int, ok bool, state text, msg text, out text, rt bool);
	DO \$\$
	DECLARE r record; c countmin; t topk;
	BEGIN}
	. text_input_loop(cases => 'cms_cases', out => 'text_out', key => "'cms', ", type => 'countmin', var => 'c',
		accepted => [ 'c::text', 'c::text::countmin = c' ])
	. text_input_loop(cases => 'topk_cases', out => 'text_out', key => "'topk', ", type => 'topk', var => 't',
		accepted => [ 't::text', 't::text::topk = t' ])
	. qq{
	END
	\$\$;
	CREATE TABLE cms_target (c countmin);
	CREATE TABLE topk_target (t topk);
	CREATE TABLE bin_out (kind text, id int, ok bool, state text, msg text, out text, sent text, rt bool);
	DO \$\$
	DECLARE r record;
	BEGIN}
	. binary_input_loop(dir => $dir, prefix => 'bin_', last => $#bin_cases, target => 'cms_target',
		out => 'bin_out', key => "'cms', ",
		accepted => [ 'c::text', "encode(countmin_send(c), 'hex')", 'c::text::countmin = c' ])
	. binary_input_loop(dir => $dir, prefix => 'tbin_', last => $#topk_bin_cases, target => 'topk_target',
		out => 'bin_out', key => "'topk', ",
		accepted => [ 't::text', "encode(topk_send(t), 'hex')", 't::text::topk = t' ])
	. qq{
	END
	\$\$;
});

check_alive($node);

# ---------------------------------------------------------------------------
# check every outcome
# ---------------------------------------------------------------------------

my (%tally, @failures);
sub class22 { my ($state, $msg) = @_; return $state =~ /^22/ || ($state eq '0A000' && $msg =~ /scheme version/); }

my $out = fetch_outcomes($node, 'text_out', "kind = 'cms'", 'msg', 'out', 'rt::text');
is(scalar(keys %$out), scalar(@cms_cases), 'every countmin text input has an outcome');
for my $i (0 .. $#cms_cases)
{
	my $in = $cms_cases[$i];
	my $verdict = cms_text_verdict($in);
	my ($ok, $state, $msg, $txt, $rt) = @{ $out->{$i} // [] };
	my $shown = substr($in =~ s/\n/\\n/gr, 0, 100);
	if (!defined $ok) { push @failures, "cms text #$i: no outcome"; next; }
	if ($ok eq 't')
	{
		$tally{"cms text accepted ($verdict)"}++;
		push @failures, "cms text #$i accepted but $verdict: '$shown'"
		  if $verdict eq 'invalid' || $verdict eq 'version';
		push @failures, "cms text #$i does not round-trip: '$shown'" if $rt ne 'true';
		push @failures, "cms text #$i printed as '$txt'" if $verdict eq 'valid' && $txt ne $in;
	}
	else
	{
		$tally{"cms text rejected ($verdict)"}++;
		push @failures, "cms text #$i rejected but valid: '$shown': $state $msg" if $verdict eq 'valid';
		push @failures, "cms text #$i: SQLSTATE $state: '$shown': $msg" unless class22($state, $msg);
	}
}

$out = fetch_outcomes($node, 'bin_out', "kind = 'cms'", 'msg', 'out', 'sent', 'rt::text');
is(scalar(keys %$out), scalar(@bin_cases), 'every countmin payload has an outcome');
for my $i (0 .. $#bin_cases)
{
	my $expected = cms_binary_expected_text($bin_cases[$i]);
	my ($ok, $state, $msg, $txt, $sent, $rt) = @{ $out->{$i} // [] };
	my $hex = substr(unpack('H*', $bin_cases[$i]), 0, 60);
	if (!defined $ok) { push @failures, "cms binary #$i: no outcome"; next; }
	if ($ok eq 't')
	{
		$tally{'cms binary accepted'}++;
		if (!defined $expected) { push @failures, "cms binary #$i accepted but invalid: $hex"; next; }
		push @failures, "cms binary #$i printed as '$txt', expected '$expected'" if $txt ne $expected;
		push @failures, "cms binary #$i: send differs" if $sent ne unpack('H*', $bin_cases[$i]);
		push @failures, "cms binary #$i does not round-trip" if $rt ne 'true';
	}
	else
	{
		$tally{"cms binary rejected"}++;
		push @failures, "cms binary #$i rejected but valid ($expected): $state $msg" if defined $expected;
		push @failures, "cms binary #$i: SQLSTATE $state: $msg" unless $state =~ /^22/;
	}
}

$out = fetch_outcomes($node, 'text_out', "kind = 'topk'", 'msg', 'out', 'rt::text');
is(scalar(keys %$out), scalar(@topk_cases), 'every topk text input has an outcome');
for my $i (0 .. $#topk_cases)
{
	my ($ok, $state, $msg, $txt, $rt) = @{ $out->{$i} // [] };
	my $shown = substr($topk_cases[$i] =~ s/\n/\\n/gr, 0, 100);
	if (!defined $ok) { push @failures, "topk text #$i: no outcome"; next; }
	if ($ok eq 't')
	{
		$tally{'topk text accepted'}++;
		push @failures, "topk text #$i does not round-trip: '$shown'" if $rt ne 'true';
		# canonical input (no leading zeros, no -0) prints back identically
		push @failures, "topk text #$i printed as '$txt': '$shown'"
		  if $txt ne $topk_cases[$i] && $topk_cases[$i] !~ /(^|[=,:;|])-?0\d|=-0[,:]/;
	}
	else
	{
		$tally{'topk text rejected'}++;
		push @failures, "topk seed #$i rejected: $state $msg" if $i < @topk_seeds;
		push @failures, "topk text #$i: SQLSTATE $state: '$shown': $msg" unless class22($state, $msg);
	}
}

$out = fetch_outcomes($node, 'bin_out', "kind = 'topk'", 'msg', 'out', 'sent', 'rt::text');
is(scalar(keys %$out), scalar(@topk_bin_cases), 'every topk payload has an outcome');
for my $i (0 .. $#topk_bin_cases)
{
	my ($ok, $state, $msg, $txt, $sent, $rt) = @{ $out->{$i} // [] };
	if (!defined $ok) { push @failures, "topk binary #$i: no outcome"; next; }
	if ($ok eq 't')
	{
		$tally{'topk binary accepted'}++;
		push @failures, "topk binary #$i: send differs from the accepted payload"
		  if $sent ne unpack('H*', $topk_bin_cases[$i]);
		push @failures, "topk binary #$i does not round-trip" if $rt ne 'true';
	}
	else
	{
		$tally{'topk binary rejected'}++;
		push @failures, "topk binary seed #$i rejected: $state $msg" if $i < @topk_bin_seeds;
		push @failures, "topk binary #$i: SQLSTATE $state: $msg" unless $state =~ /^22/;
	}
}

report_outcomes(\%tally, \@failures, '');
cmp_ok(($tally{'cms text accepted (valid)'} // 0), '>=', 20, 'many countmin texts accepted');
cmp_ok(($tally{'cms text rejected (invalid)'} // 0), '>=', 200, 'many countmin texts rejected');
cmp_ok(($tally{'cms binary accepted'} // 0), '>=', 10, 'many countmin payloads accepted');
cmp_ok(($tally{'cms binary rejected'} // 0), '>=', 100, 'many countmin payloads rejected');
cmp_ok(($tally{'topk text rejected'} // 0), '>=', 100, 'many topk texts rejected');
cmp_ok(($tally{'topk binary rejected'} // 0), '>=', 50, 'many topk payloads rejected');

is($node->safe_psql('postgres', 'SELECT 1'), '1', 'server alive at the end');
$node->stop;
done_testing();
