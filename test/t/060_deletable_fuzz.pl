# test/t/060_deletable_fuzz.pl
#   Deterministic fuzzing of the countingbloom and cuckoofilter input functions
#   (cuckoofilter in both formats: version 1, a power of two of buckets, and
#   version 2, any count),
#   in the manner of 011_input_fuzz.pl: several hundred mutated text forms and
#   binary payloads per type (the payloads loaded by a real COPY ... (FORMAT
#   binary) of a one-row file), each inside a PL/pgSQL exception block, then
#   every outcome checked against an oracle written here in Perl from the
#   documented formats (docs/hashing.md):
#     - invalid per the format   -> rejected with SQLSTATE class 22 (0A000 only
#       for an unsupported version);
#     - valid and canonical      -> accepted, printed back exactly (text) or as
#       the Perl rendering of the payload (binary), send gives the payload back,
#       and the item count (cuckoo_count) / saturated counters
#       (cbloom_saturated) equal the ones counted here;
#     - valid, not canonical     -> either outcome, round-trips if accepted.
#   The server must never crash.  Also a binary and a text COPY round trip of
#   tables of real filters.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use InputFuzz;

srand(20261126);

my ($node, $dir) = fuzz_node('fuzz_deletable');

sub randbytes { my ($n) = @_; return join '', map { chr(rint(256)) } 1 .. $n; }

# ---------------------------------------------------------------------------
# the oracles
# ---------------------------------------------------------------------------

# numbers: at most 12 digits; leading zeros and -0 are not canonical
sub numbers_ok
{
	my ($quirk, @nums) = @_;
	for my $num (@nums)
	{
		(my $digits = $num) =~ s/^-//;
		return (0, $quirk) if length($digits) > 12;
		$quirk = 1 if $digits =~ /^0\d/ || $num eq '-0';
	}
	return (1, $quirk);
}

sub strip_space
{
	my ($t) = @_;
	my $quirk = 0;
	$quirk = 1 if $t =~ s/^[ \t\n]+//;
	$quirk = 1 if $t =~ s/[ \t\n]+$//;
	return ($t, $quirk);
}

# countingbloom text: returns (verdict, saturated counters)
sub cb_text_verdict
{
	my ($t, $quirk) = strip_space($_[0]);
	return ('invalid')
	  unless $t =~ /^m=(-?\d+),k=(-?\d+),seed=(-?\d+),hash=([a-z0-9]+),v=(-?\d+):([0-9a-fA-F]*)$/;
	my ($m, $k, $seed, $hash, $v, $hex) = ($1, $2, $3, $4, $5, $6);
	(my $ok, $quirk) = numbers_ok($quirk, $m, $k, $seed, $v);
	return ('invalid') unless $ok;
	return ('invalid') if $m < 8 || $m > 2**29 || $k < 1 || $k > 32;
	return ('invalid') if $seed < -2**31 || $seed > 2**31 - 1 || $v != 1;
	return ('invalid') if $hash ne 'xxh3' && $hash ne 'linear';
	return ('invalid') if length($hex) != $m;
	$quirk = 1 if $hex =~ /[A-F]/;
	return ($quirk ? 'either' : 'valid', scalar(() = $hex =~ /[fF]/g));
}

# countingbloom binary: (expected text, saturated) or ()
sub cb_binary_expected
{
	my ($p) = @_;
	return () if length($p) < 12;
	my ($ver, $hash, $k, $flags, $seed, $m) = unpack('C C C C l> N', $p);
	my $c = substr($p, 12);
	return () if $ver != 1 || $hash > 1 || $k < 1 || $k > 32 || $flags != 0;
	return () if $m < 8 || $m > 2**29 || length($c) != int(($m + 1) / 2);
	return () if $m % 2 && (ord(substr($c, -1)) >> 4) != 0;
	my $hex = join '', map { sprintf('%x', (ord(substr($c, $_ >> 1, 1)) >> (4 * ($_ & 1))) & 15) } 0 .. $m - 1;
	return (sprintf('m=%u,k=%d,seed=%d,hash=%s,v=1:%s', $m, $k, $seed, $hash ? 'linear' : 'xxh3', $hex),
		scalar(() = $hex =~ /f/g));
}

# the number of non-zero f-bit slots of a table (bit p in byte p/8, LSB first)
sub cuckoo_items
{
	my ($table, $f, $slots) = @_;
	my $bits = unpack('b*', $table);
	my $n = 0;
	for my $s (0 .. $slots - 1)
	{
		$n++ if substr($bits, $s * $f, $f) =~ /1/;
	}
	return $n;
}

# version 1: a power of two of buckets; version 2: any count (issue 34)
sub cuckoo_shape_ok
{
	my ($buckets, $f, $v) = @_;
	return 0 if $buckets < 2 || $buckets > 2**28;
	return 0 if $v == 1 && ($buckets & ($buckets - 1)) != 0;
	return 0 if $f < 4 || $f > 32 || $buckets * 4 * $f > 2**31;
	return 1;
}

sub tail_clear
{
	my ($nbits, $bytes) = @_;
	return 1 if $nbits % 8 == 0;
	return (ord(substr($bytes, -1)) >> ($nbits % 8)) == 0;
}

sub ck_text_verdict
{
	my ($t, $quirk) = strip_space($_[0]);
	return ('invalid')
	  unless $t =~ /^buckets=(-?\d+),fp_bits=(-?\d+),seed=(-?\d+),v=(-?\d+):([0-9a-fA-F]*)$/;
	my ($b, $f, $seed, $v, $hex) = ($1, $2, $3, $4, $5);
	(my $ok, $quirk) = numbers_ok($quirk, $b, $f, $seed, $v);
	return ('invalid') unless $ok;
	return ('invalid') if $seed < -2**31 || $seed > 2**31 - 1 || ($v != 1 && $v != 2);
	return ('invalid') unless cuckoo_shape_ok($b, $f, $v);
	my $nbits = $b * 4 * $f;
	return ('invalid') if length($hex) != 2 * int(($nbits + 7) / 8);
	my $bytes = pack('H*', $hex);
	return ('invalid') unless tail_clear($nbits, $bytes);
	$quirk = 1 if $hex =~ /[A-F]/;
	return ($quirk ? 'either' : 'valid', cuckoo_items($bytes, $f, $b * 4));
}

sub ck_binary_expected
{
	my ($p) = @_;
	return () if length($p) < 8;
	my ($ver, $f, $slots, $lb, $seed) = unpack('C C C C l>', $p);
	my $table = substr($p, 8);
	return () if ($ver != 1 && $ver != 2) || $slots != 4;
	my $b;
	if ($ver == 1)
	{
		return () if $lb > 28;
		$b = 2**$lb;
	}
	else
	{
		# version 2: log2 byte 0, then the bucket count (u32, network order)
		return () if $lb != 0 || length($table) < 4;
		$b = unpack('N', $table);
		$table = substr($table, 4);
	}
	return () unless cuckoo_shape_ok($b, $f, $ver);
	my $nbits = $b * 4 * $f;
	return () if length($table) != int(($nbits + 7) / 8) || !tail_clear($nbits, $table);
	return (sprintf('buckets=%d,fp_bits=%d,seed=%d,v=%d:%s', $b, $f, $seed, $ver, unpack('H*', $table)),
		cuckoo_items($table, $f, $b * 4));
}

# ---------------------------------------------------------------------------
# seeds and mutations
# ---------------------------------------------------------------------------

my @cb_text_seeds = split /\n/, $node->safe_psql('postgres', q{
	SELECT cbloom_agg(x % 40, 64, 3)::text FROM generate_series(1, 400) x
	UNION ALL SELECT cbloom_agg(x, 101, 5, -7, 'linear')::text FROM generate_series(1, 30) x
	UNION ALL SELECT cbloom_empty(8, 1)::text
	UNION ALL SELECT cbloom_empty(33, 32, -2147483648)::text});
for (1 .. 6)
{
	my $m = pick(8, 9, 15, 16, 17, 63, 200);
	push @cb_text_seeds, sprintf('m=%d,k=%d,seed=%d,hash=%s,v=1:%s', $m, 1 + rint(32),
		pick(0, -1, 2147483647, rint(100000)), pick('xxh3', 'linear'),
		join('', map { pick(split //, '0000000123456789abcdef') } 1 .. $m));
}
my @ck_text_seeds = split /\n/, $node->safe_psql('postgres', q{
	SELECT cuckoo_agg(x, 120, 0.01)::text FROM generate_series(1, 110) x
	UNION ALL SELECT cuckoo_agg(x, 20, 0.2, -3)::text FROM generate_series(1, 20) x
	UNION ALL SELECT cuckoo_agg(x, 8, 2e-9, 5)::text FROM generate_series(1, 6) x
	UNION ALL SELECT cuckoo_empty(1, 0.5)::text});
for (1 .. 6)
{
	my ($lb, $f) = (1 + rint(4), 4 + rint(29));
	my $nbits = 2**$lb * 4 * $f;
	my $bytes = join '', map { chr(rand() < 0.6 ? rint(256) : 0) } 1 .. int(($nbits + 7) / 8);
	substr($bytes, -1, 1) = chr(ord(substr($bytes, -1)) & ((1 << ($nbits % 8)) - 1)) if $nbits % 8;
	push @ck_text_seeds, sprintf('buckets=%d,fp_bits=%d,seed=%d,v=1:%s', 2**$lb, $f, rint(1000) - 500,
		unpack('H*', $bytes));
}

my @chars = split //, "0123456789abcdefxyzABCDEF,:=- \t\n;|\\\"'{}()+.";
my @num_values = (0, 1, 2, 3, 4, 5, 8, 16, 31, 32, 33, 64, -1, 255, 256, 536870912, 536870913,
	268435456, 268435457, 2147483647, 2147483648, 999999999999, 9999999999999, '', '-', '004', '+4', '0x4', '-0');

sub mutate_text
{
	my ($s, @fields) = @_;
	my $len = length $s;
	my $op = rint(12);
	my $m = char_mutation($s, $op, @chars);
	return $m if defined $m;
	if ($op == 4)
	{
		my $f = pick(@fields);
		my $val = pick(@num_values);
		$s =~ s/(^|,)$f=-?\d*([,:])/$1$f=$val$2/;
		return $s;
	}
	if ($op == 5 && $s =~ /:([0-9a-f]+)$/)
	{
		substr($s, $-[1] + rint(length $1), 1) = pick(split //, '0123456789abcdef');
		return $s;
	}
	if ($op == 6) { return $s . pick('0', '00', 'f', 'ff', 'g', ' ', "\n"); }
	if ($op == 7) { return substr($s, 0, $len - 1 - rint(2)); }
	if ($op == 8) { $s =~ s/:([0-9a-f]+)$/':' . uc($1)/e; return $s; }
	if ($op == 9) { $s =~ s/[0-9a-f]$/f/; return $s; }
	if ($op == 10) { $s =~ s/hash=[a-z0-9]*/hash=${\ pick('xxh3', 'linear', 'XXH3', 'md5', '')}/; return $s; }
	return pick(' ', "\t", "\n") . $s . pick('', ' ', "\n");
}

sub mutate_binary
{
	my ($p, $hdr) = @_;
	my $op = rint(9);
	my $len = length $p;
	if ($op == 0) { return randbytes(rint(40)); }
	if ($op == 1) { return substr($p, 0, rint($len)); }
	if ($op == 2 && $len)
	{
		my $at = rint($len < $hdr || rand() < 0.5 ? $len : $hdr);
		substr($p, $at, 1) = chr(ord(substr($p, $at, 1)) ^ (1 << rint(8)));
		return $p;
	}
	if ($op == 3) { return $p . randbytes(1 + rint(3)); }
	if ($op == 4 && $len >= 4) { substr($p, rint(4), 1) = chr(pick(0, 1, 2, 3, 4, 5, 28, 29, 32, 33, 255)); return $p; }
	if ($op == 5 && $len >= 12 && $hdr == 12)
	{
		substr($p, 8, 4) = pack('N', pick(0, 7, 8, 9, 64, 65, 2**29, 2**29 + 1, 2**32 - 1));
		return $p;
	}
	if ($op == 6 && $len > $hdr) { substr($p, -1, 1) = chr(255); return $p; }
	if ($op == 7) { return substr($p, 0, $hdr); }
	return $p;
}

my (@cb_bin_seeds, @ck_bin_seeds);
for (1 .. 10)
{
	my $m = pick(8, 9, 16, 17, 63, 64, 65, 101, 1000);
	my $c = join '', map { chr(rand() < 0.5 ? rint(256) : 0) } 1 .. int(($m + 1) / 2);
	substr($c, -1, 1) = chr(ord(substr($c, -1)) & 15) if $m % 2;
	push @cb_bin_seeds, pack('C C C C l> N', 1, rint(2), 1 + rint(32), 0, rint(2000) - 1000, $m) . $c;
	my ($lb, $f) = (1 + rint(5), 4 + rint(29));
	my $nbits = 2**$lb * 4 * $f;
	my $t = join '', map { chr(rand() < 0.5 ? rint(256) : 0) } 1 .. int(($nbits + 7) / 8);
	substr($t, -1, 1) = chr(ord(substr($t, -1)) & ((1 << ($nbits % 8)) - 1)) if $nbits % 8;
	push @ck_bin_seeds, pack('C C C C l>', 1, $f, 4, $lb, rint(2000) - 1000) . $t;
	# version 2 (issue 34): any bucket count, given after the seed
	my $b = 2 + rint(40);
	$nbits = $b * 4 * $f;
	$t = join '', map { chr(rand() < 0.5 ? rint(256) : 0) } 1 .. int(($nbits + 7) / 8);
	substr($t, -1, 1) = chr(ord(substr($t, -1)) & ((1 << ($nbits % 8)) - 1)) if $nbits % 8;
	push @ck_bin_seeds, pack('C C C C l> N', 2, $f, 4, 0, rint(2000) - 1000, $b) . $t;
}

my %types = (
	countingbloom => {
		text => [ mutated_cases(400, \&mutate_text, \@cb_text_seeds, 3, 'm', 'k', 'seed', 'v') ],
		bin => [ mutated_cases(250, \&mutate_binary, \@cb_bin_seeds, 3, 12) ],
		text_verdict => \&cb_text_verdict, bin_expected => \&cb_binary_expected,
		send => 'countingbloom_send', count => 'cbloom_saturated' },
	cuckoofilter => {
		text => [ mutated_cases(400, \&mutate_text, \@ck_text_seeds, 3, 'buckets', 'fp_bits', 'seed', 'v') ],
		bin => [ mutated_cases(250, \&mutate_binary, \@ck_bin_seeds, 3, 8) ],
		text_verdict => \&ck_text_verdict, bin_expected => \&ck_binary_expected,
		send => 'cuckoofilter_send', count => 'cuckoo_count' });

# ---------------------------------------------------------------------------
# run in the server, check against the oracle
# ---------------------------------------------------------------------------

for my $type (sort keys %types)
{
	my $t = $types{$type};
	my ($send, $count) = ($t->{send}, $t->{count});
	my $tf = "$dir/$type.tsv";
	write_text_cases($tf, $t->{text});
	write_copy_file("$dir/${type}_$_.copy", $t->{bin}[$_]) for 0 .. $#{ $t->{bin} };
	my $nbin = $#{ $t->{bin} };
	$node->safe_psql('postgres', qq{
		CREATE TABLE ${type}_cases (id int, input text);
		COPY ${type}_cases FROM '$tf';
		CREATE TABLE ${type}_text (id int, ok bool, state text, msg text, out text, sent text, rt bool, n bigint);
		CREATE TABLE ${type}_bin (LIKE ${type}_text);
		CREATE TABLE ${type}_target (f $type);
		DO \$\$
		DECLARE r record; v $type;
		BEGIN}
		. text_input_loop(cases => "${type}_cases", out => "${type}_text", type => $type, var => 'v',
			accepted => [ 'v::text', "encode($send(v), 'hex')", "v::text::$type = v", "$count(v)" ])
		. binary_input_loop(dir => $dir, prefix => "${type}_", last => $nbin, target => "${type}_target",
			out => "${type}_bin", accepted => [ 'f::text', "encode($send(f), 'hex')", "f::text::$type = f", "$count(f)" ])
		. qq{
		END
		\$\$;
	});
	is($node->safe_psql('postgres', 'SELECT 1'), '1', "$type: server alive after the fuzz inputs");

	my (%tally, @failures);
	my $text_out = fetch_outcomes($node, "${type}_text", undef, 'msg', 'out', 'sent', 'rt::text', 'n::text');
	for my $i (0 .. $#{ $t->{text} })
	{
		my $in = $t->{text}[$i];
		my ($verdict, $n) = $t->{text_verdict}->($in);
		my ($ok, $state, $msg, $out, $sent, $rt, $got_n) = @{ $text_out->{$i} // [] };
		my $shown = substr($in =~ s/\n/\\n/gr =~ s/\t/\\t/gr, 0, 100);
		if (!defined $ok) { push @failures, "text #$i: no outcome"; next; }
		if ($ok eq 't')
		{
			$tally{"text accepted ($verdict)"}++;
			push @failures, "text #$i accepted but invalid: '$shown'" if $verdict eq 'invalid';
			push @failures, "text #$i does not round-trip: '$shown'" if $rt ne 'true';
			push @failures, "text #$i printed as '$out': '$shown'" if $verdict eq 'valid' && $out ne $in;
			push @failures, "text #$i: $count $got_n, counted $n: '$shown'"
			  if $verdict ne 'invalid' && $got_n != $n;
		}
		else
		{
			$tally{"text rejected ($verdict) $state"}++;
			push @failures, "text #$i rejected but valid: '$shown': $state $msg" if $verdict eq 'valid';
			push @failures, "text #$i: SQLSTATE $state is not class 22: '$shown': $msg"
			  unless $state =~ /^22/ || ($state eq '0A000' && $msg =~ /version/);
		}
	}
	my $bin_out = fetch_outcomes($node, "${type}_bin", undef, 'msg', 'out', 'sent', 'rt::text', 'n::text');
	for my $i (0 .. $#{ $t->{bin} })
	{
		my ($expected, $n) = $t->{bin_expected}->($t->{bin}[$i]);
		my ($ok, $state, $msg, $out, $sent, $rt, $got_n) = @{ $bin_out->{$i} // [] };
		my $hex = substr(unpack('H*', $t->{bin}[$i]), 0, 60);
		if (!defined $ok) { push @failures, "binary #$i: no outcome"; next; }
		if ($ok eq 't')
		{
			$tally{'binary accepted'}++;
			if (!defined $expected) { push @failures, "binary #$i accepted but invalid: $hex"; next; }
			push @failures, "binary #$i printed as '$out', expected '$expected'" if $out ne $expected;
			push @failures, "binary #$i: send gives other bytes" if $sent ne unpack('H*', $t->{bin}[$i]);
			push @failures, "binary #$i does not round-trip" if $rt ne 'true';
			push @failures, "binary #$i: $count $got_n, counted $n" if $got_n != $n;
		}
		else
		{
			$tally{"binary rejected $state"}++;
			push @failures, "binary #$i rejected but valid: $state $msg" if defined $expected;
			push @failures, "binary #$i: SQLSTATE $state is not class 22: $msg" unless $state =~ /^22/;
		}
	}
	report_outcomes(\%tally, \@failures, "$type: ");
	my ($acc, $rej) = (0, 0);
	for (keys %tally)
	{
		$acc += $tally{$_} if /^text accepted/;
		$rej += $tally{$_} if /^text rejected/;
	}
	cmp_ok($acc, '>=', 20, "$type: many text inputs accepted");
	cmp_ok($rej, '>=', 150, "$type: many text inputs rejected");
	cmp_ok($tally{'binary accepted'} // 0, '>=', 10, "$type: binary payloads accepted");
	cmp_ok(@{ $t->{bin} } - ($tally{'binary accepted'} // 0), '>=', 100, "$type: binary payloads rejected");
}
ok(!$node->log_contains('terminated by signal|was terminated|PANIC'), 'no backend crashed');

# ---------------------------------------------------------------------------
# COPY round trips (binary and text) of real filters, and the typmod on COPY
# ---------------------------------------------------------------------------
$node->safe_psql('postgres', qq{
	CREATE TABLE orig (id int, c countingbloom, f cuckoofilter);
	INSERT INTO orig
	SELECT g, (SELECT cbloom_agg(x % (g + 3), 8 + g * 37, 1 + g % 32, g - 50, (ARRAY['xxh3', 'linear'])[1 + g % 2])
	           FROM generate_series(1, g * 20) x),
	          (SELECT cuckoo_agg(x, g * 20, 0.5 / g, g) FROM generate_series(1, g * 19) x)
	FROM generate_series(1, 60) g;
	INSERT INTO orig VALUES (61, NULL, NULL);
	COPY orig TO '$dir/orig.copy' (FORMAT binary);
	CREATE TABLE copied (LIKE orig);
	COPY copied FROM '$dir/orig.copy' (FORMAT binary);
	COPY orig TO '$dir/orig.txt';
	CREATE TABLE copied_text (LIKE orig);
	COPY copied_text FROM '$dir/orig.txt';
});
for my $t ('copied', 'copied_text')
{
	is($node->safe_psql('postgres', qq{
		SELECT count(*) FROM orig o FULL JOIN $t c USING (id)
		WHERE o.c IS DISTINCT FROM c.c OR o.f IS DISTINCT FROM c.f
		   OR cuckoo_count(o.f) IS DISTINCT FROM cuckoo_count(c.f)}),
		'0', "$t: COPY round trip keeps every filter (and NULL) identical");
}
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM copied, generate_series(1, id * 19) x WHERE NOT f @> x::bigint}),
	'0', 'copied cuckoo filters still contain their elements');
write_copy_file("$dir/typmod.copy", pack('C C C C l> N', 1, 0, 4, 0, 0, 64) . ("\0" x 32));
my ($rc, $stdout, $stderr) = $node->psql('postgres', qq{
	CREATE TABLE typed (c countingbloom(64, 3));
	COPY typed FROM '$dir/typmod.copy' (FORMAT binary)});
like($stderr, qr/countingbloom\(64,3\)/, 'binary COPY into a typmod column checks m and k');

is($node->safe_psql('postgres', 'SELECT 1'), '1', 'server alive at the end');
$node->stop;
done_testing();
