# test/t/040_bloomtree_fuzz.pl
#   Deterministic fuzzing of the bloomtree input functions.
#
#   Text: several hundred mutations (truncation, deletion, insertion, list
#   values at and beyond their limits, levels added and removed, hex length,
#   case and tail bits, bits that break the zero-parent rule, reordering,
#   whitespace, chains of these) of valid text forms.  Binary: several hundred
#   payloads (random bytes; valid coded forms from the server and coded here,
#   including non-canonical codings; mutated header fields, stream bytes and
#   lengths), each loaded through bloomtree_recv by a real COPY ... (FORMAT
#   binary) of a one-row file.  Every input runs inside a PL/pgSQL exception
#   block; afterwards each outcome is checked against an independent oracle
#   written here in Perl from the documented formats (docs/bloomtree.md),
#   with its own range decoder:
#     - input invalid per the format -> rejected with SQLSTATE class 22 (54000
#       for parameters beyond the storage or hashing limits, 0A000 for an
#       unsupported scheme version in text);
#     - text valid and canonical -> accepted and printed back unchanged;
#       valid but not canonical (leading zeros, upper-case hex, surrounding
#       whitespace) -> either outcome, and round-trips if accepted;
#     - binary valid -> accepted, printed as the bits the oracle decodes, and
#       bloomtree_send gives a coding the oracle decodes to the same bits.
#   The server must never crash.  Also a binary COPY round trip (TO, FROM)
#   of a table of trees.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use InputFuzz;

srand(20261123);    # deterministic: Perl's rand is drand48 on every platform

my ($node, $dir) = fuzz_node('btfuzz');

my $MAX_M       = 2**31 - 1;
my $MAX_STORAGE = 2**31;
my $MAX_PROBES  = 2**16;

# ---------------------------------------------------------------------------
# the oracle: layout, bits, the text form, the binary form and its decoder
# ---------------------------------------------------------------------------

# (storage bits, [level offsets], [filters per level]) or undef beyond the limits
sub layout
{
	my ($m, $k) = @_;
	my ($nf, $off, $probes, $prod) = (1, 0, 0, 1);
	my (@offset, @filters);
	for my $a (0 .. $#$m)
	{
		my $lb = $nf * $m->[$a];
		return undef if $lb > $MAX_STORAGE - $off;
		push @offset,  $off;
		push @filters, $nf;
		$off += $lb;
		$nf = $lb;
		$prod *= $k->[$a];
		$probes += $prod;
	}
	return undef if $probes > $MAX_PROBES;
	return ($off, \@offset, \@filters);
}

sub getbit { my ($s, $i) = @_; return (ord(substr($s, $i >> 3, 1)) >> ($i & 7)) & 1; }

sub setbit
{
	my ($sref, $i) = @_;
	substr($$sref, $i >> 3, 1) = chr(ord(substr($$sref, $i >> 3, 1)) | (1 << ($i & 7)));
}

# the bits each level codes: the root, then the filters below set bits
sub coded_positions
{
	my ($bits, $m, $offset, $filters, $a) = @_;
	return [ map { $offset->[0] + $_ } 0 .. $m->[0] - 1 ] if $a == 0;
	my @pos;
	for my $i (0 .. $filters->[$a] - 1)
	{
		next unless getbit($bits, $offset->[ $a - 1 ] + $i);
		push @pos, map { $offset->[$a] + $i * $m->[$a] + $_ } 0 .. $m->[$a] - 1;
	}
	return \@pos;
}

# a filter below a zero bit is all zero; bits >= M are zero
sub structure_ok
{
	my ($bits, $m, $storage, $offset, $filters) = @_;
	for my $i ($storage .. 8 * length($bits) - 1) { return 0 if getbit($bits, $i); }
	for my $a (1 .. $#$m)
	{
		for my $i (0 .. $filters->[$a] - 1)
		{
			next if getbit($bits, $offset->[ $a - 1 ] + $i);
			for my $j (0 .. $m->[$a] - 1)
			{
				return 0 if getbit($bits, $offset->[$a] + $i * $m->[$a] + $j);
			}
		}
	}
	return 1;
}

sub render_text
{
	my ($m, $k, $seed, $bits) = @_;
	return sprintf('m={%s},k={%s},seed=%d,v=1:%s', join(',', @$m), join(',', @$k), $seed,
		unpack('H*', $bits));
}

# 'valid' (canonical), 'either' (valid, not canonical) or 'invalid'
sub text_verdict
{
	my ($s) = @_;
	my $quirk = 0;
	my $t = $s;
	$quirk = 1 if $t =~ s/^[ \t\n]+//;
	$quirk = 1 if $t =~ s/[ \t\n]+$//;
	return 'invalid'
	  unless $t =~ /^m=\{(-?\d+(?:,-?\d+)*)\},k=\{(-?\d+(?:,-?\d+)*)\},seed=(-?\d+),v=(-?\d+):([0-9a-fA-F]*)$/;
	my ($ms, $ks, $seed, $v, $hex) = ($1, $2, $3, $4, $5);
	my @m = split /,/, $ms;
	my @k = split /,/, $ks;
	for my $num (@m, @k, $seed, $v)
	{
		(my $digits = $num) =~ s/^-//;
		return 'invalid' if length($digits) > 12;
		$quirk = 1 if $digits =~ /^0\d/ || $num eq '-0';
	}
	return 'invalid' if @m > 8 || @k > 8 || @m != @k;
	return 'invalid' if grep { $_ < 1 || $_ > $MAX_M } @m;
	return 'invalid' if grep { $_ < 1 || $_ > 32 } @k;
	return 'invalid' if $seed < -2**31 || $seed > 2**31 - 1;
	return 'invalid' if $v != 1;
	my ($storage, $offset, $filters) = layout(\@m, \@k);
	return 'invalid' unless defined $storage;
	return 'invalid' if length($hex) != 2 * int(($storage + 7) / 8);
	return 'invalid' unless structure_ok(pack('H*', $hex), \@m, $storage, $offset, $filters);
	$quirk = 1 if $hex =~ /[A-F]/;
	return $quirk ? 'either' : 'valid';
}

# LZMA-style range decoder, 16-bit P(0); undef unless the stream is exactly what it reads
sub range_decode
{
	my ($data, $prob0, $n) = @_;
	return undef if length($data) < 4;
	my $code = unpack('N', $data);
	return undef if $code == 0xFFFFFFFF;
	my ($range, $pos, @out) = (0xFFFFFFFF, 4);
	for (1 .. $n)
	{
		my $bound = ($range >> 16) * $prob0;
		if ($code < $bound) { $range = $bound; push @out, 0; }
		else { $code -= $bound; $range -= $bound; push @out, 1; }
		while ($range < (1 << 24))
		{
			return undef if $pos >= length $data;
			$range <<= 8;
			$code = ($code << 8) | ord(substr($data, $pos++, 1));
		}
	}
	return $pos == length($data) ? \@out : undef;
}

# and its encoder (to craft codings with other probabilities than the server's)
sub range_encode
{
	my ($bits, $prob0) = @_;
	my ($low, $range, $cache, $csize, $out) = (0, 0xFFFFFFFF, 0, 1, '');
	my $shift = sub {
		if (($low & 0xFFFFFFFF) < 0xFF000000 || ($low >> 32) != 0)
		{
			my $carry = $low >> 32;
			my $temp  = $cache;
			do { $out .= chr(($temp + $carry) & 0xFF); $temp = 0xFF; } while (--$csize != 0);
			$cache = ($low >> 24) & 0xFF;
		}
		$csize++;
		$low = ($low & 0x00FFFFFF) << 8;
	};
	for my $b (@$bits)
	{
		my $bound = ($range >> 16) * $prob0;
		if ($b) { $low += $bound; $range -= $bound; }
		else { $range = $bound; }
		while ($range < (1 << 24)) { $range = ($range << 8) & 0xFFFFFFFF; $shift->(); }
	}
	$shift->() for 1 .. 5;
	return substr($out, 1);
}

# the bits a binary payload decodes to, or undef when it is invalid
sub binary_decode
{
	my ($p) = @_;
	return undef if length($p) < 8;
	my ($ver, $d, $flags, $res, $seed) = unpack('C C C C l>', $p);
	return undef if $ver != 1 || $flags != 0 || $res != 0 || $d < 1 || $d > 8;
	return undef if length($p) < 8 + 12 * $d;
	my (@m, @k, @mode, @prob0, @nbytes);
	for my $a (0 .. $d - 1)
	{
		my ($m, $k, $mode, $prob0, $nb) = unpack('N C C n N', substr($p, 8 + 12 * $a, 12));
		return undef if $m < 1 || $m > $MAX_M || $k < 1 || $k > 32 || $mode > 3;
		push @m, $m; push @k, $k; push @mode, $mode; push @prob0, $prob0; push @nbytes, $nb;
	}
	my ($storage, $offset, $filters) = layout(\@m, \@k);
	return undef unless defined $storage;
	my $total = 0;
	$total += $_ for @nbytes;
	return undef if $total != length($p) - 8 - 12 * $d;
	my $bits = "\0" x int(($storage + 7) / 8);
	my $at = 8 + 12 * $d;
	for my $a (0 .. $d - 1)
	{
		my $stream = substr($p, $at, $nbytes[$a]);
		$at += $nbytes[$a];
		my $pos = coded_positions($bits, \@m, $offset, $filters, $a);
		my $n = scalar @$pos;
		my $mode = $mode[$a];
		return undef if ($mode == 2) != ($prob0[$a] != 0);
		my @v;
		if ($mode == 0 || $mode == 1)
		{
			return undef if $nbytes[$a] != 0;
			@v = ($mode) x $n;
		}
		elsif ($mode == 3)
		{
			return undef if $nbytes[$a] != int(($n + 7) / 8);
			@v = map { getbit($stream, $_) } 0 .. $n - 1;
			for my $j ($n .. 8 * length($stream) - 1) { return undef if getbit($stream, $j); }
		}
		else
		{
			my $dec = range_decode($stream, $prob0[$a], $n);
			return undef unless defined $dec;
			@v = @$dec;
		}
		for my $j (0 .. $n - 1) { setbit(\$bits, $pos->[$j]) if $v[$j]; }
	}
	return render_text(\@m, \@k, $seed, $bits);
}

# a valid payload for these bits, each level coded in the mode asked for
# ('canonical' picks what the server picks, without the RANGE/RAW size rule)
sub binary_payload
{
	my ($m, $k, $seed, $bits, $how) = @_;
	my ($storage, $offset, $filters) = layout($m, $k);
	my ($head, $streams) = (pack('C C C C l>', 1, scalar @$m, 0, 0, $seed), '');
	for my $a (0 .. $#$m)
	{
		my $pos = coded_positions($bits, $m, $offset, $filters, $a);
		my @v = map { getbit($bits, $_) } @$pos;
		my $n = scalar @v;
		my $ones = grep { $_ } @v;
		my ($mode, $prob0, $data) = (3, 0, '');
		my $want = $how eq 'raw' ? 'raw' : $how eq 'range' ? 'range' : 'canonical';
		if ($want eq 'canonical' && $ones == 0) { $mode = 0; }
		elsif ($want eq 'canonical' && $ones == $n) { $mode = 1; }
		elsif ($want eq 'raw' || $n == 0)
		{
			$data = "\0" x int(($n + 7) / 8);
			for my $j (0 .. $n - 1) { setbit(\$data, $j) if $v[$j]; }
		}
		else
		{
			$mode  = 2;
			$prob0 = $want eq 'range' ? 1 + rint(65535)
			  : do { my $q = int((($n - $ones) * 65536 + int($n / 2)) / $n); $q < 1 ? 1 : $q > 65535 ? 65535 : $q };
			$data = range_encode(\@v, $prob0);
		}
		$head .= pack('N C C n N', $m->[$a], $k->[$a], $mode, $prob0, length $data);
		$streams .= $data;
	}
	return $head . $streams;
}

# random bits obeying the zero-parent rule
sub random_tree_bits
{
	my ($m, $k, $density) = @_;
	my ($storage, $offset, $filters) = layout($m, $k);
	my $bits = "\0" x int(($storage + 7) / 8);
	for my $a (0 .. $#$m)
	{
		for my $i (@{ coded_positions($bits, $m, $offset, $filters, $a) })
		{
			setbit(\$bits, $i) if rand() < $density;
		}
	}
	return $bits;
}

# ---------------------------------------------------------------------------
# seeds: trees from the server, random trees built here
# ---------------------------------------------------------------------------

my @shapes = ([ [16, 4, 3], [3, 2, 2] ], [ [64], [3] ], [ [100, 70, 2], [2, 1, 1] ],
	[ [40, 2, 2, 2], [2, 1, 2, 1] ], [ [9, 3], [1, 4] ], [ [1, 1, 1], [1, 1, 1] ]);
my @text_seeds = split /\n/, $node->safe_psql('postgres', q{
	SELECT bloomtree_from_array(ARRAY(SELECT generate_series(1, 20))::bigint[], ARRAY[16, 4, 3], ARRAY[3, 2, 2], -5)::text
	UNION ALL SELECT bloomtree_from_array(ARRAY['a', 'b', 'c'], ARRAY[64], ARRAY[3], 7)::text
	UNION ALL SELECT bloomtree_from_array(ARRAY(SELECT generate_series(1, 50))::bigint[], ARRAY[100, 70, 2], ARRAY[2, 1, 1])::text
	UNION ALL SELECT bloomtree_from_array(ARRAY(SELECT generate_series(1, 200))::bigint[], ARRAY[40, 2, 2, 2], ARRAY[2, 1, 2, 1])::text
	UNION ALL SELECT bloomtree_empty(ARRAY[9, 3], ARRAY[1, 4], -2147483648)::text
	UNION ALL SELECT bloomtree_from_array(ARRAY[1]::bigint[], ARRAY[1, 1, 1], ARRAY[1, 1, 1], 2147483647)::text});
my @trees;    # [m, k, seed, bits]
for my $s (@text_seeds)
{
	$s =~ /^m=\{([\d,]+)\},k=\{([\d,]+)\},seed=(-?\d+),v=1:([0-9a-f]*)$/ or die "seed $s";
	push @trees, [ [ split /,/, $1 ], [ split /,/, $2 ], $3, pack('H*', $4) ];
}
for (1 .. 10)
{
	my $sh = pick(@shapes);
	my $bits = random_tree_bits($sh->[0], $sh->[1], pick(0, 0.05, 0.3, 0.6, 0.95, 1));
	my $seed = pick(0, 1, -1, 2147483647, -2147483648, rint(100000));
	push @trees, [ $sh->[0], $sh->[1], $seed, $bits ];
	push @text_seeds, render_text($sh->[0], $sh->[1], $seed, $bits);
}

# ---------------------------------------------------------------------------
# text mutations
# ---------------------------------------------------------------------------

my @chars = split //, "0123456789abcdefxyzABCDEF,:=- \t\n;|\\\"'{}()+.";
my @num_values = (0, 1, 2, 3, 4, 7, 8, 31, 32, 33, 64, 65, -1, 255, 256, 65536, 65537,
	2147483647, 2147483648, 4294967295, 999999999999, 9999999999999, '', '-', '007', '+4', ' 4', '0x4', '-0');

sub mutate_text
{
	my ($s) = @_;
	my $len = length $s;
	my $op  = rint(16);
	my $pos = rint($len + 1);
	if ($op == 0) { return substr($s, 0, rint($len)); }
	if ($op == 1 && $len) { substr($s, rint($len), 1) = ''; return $s; }
	if ($op == 2) { substr($s, $pos, 0) = pick(@chars); return $s; }
	if ($op == 3 && $len) { substr($s, rint($len), 1) = pick(@chars); return $s; }
	if ($op == 4)    # one list value
	{
		my $f = pick('m', 'k');
		if ($s =~ /(^|,)$f=\{([^}]*)\}/)
		{
			my @v = split /,/, $2, -1;
			$v[ rint(scalar @v) ] = pick(@num_values) if @v;
			my $new = join ',', @v;
			$s =~ s/(^|,)$f=\{[^}]*\}/$1$f={$new}/;
		}
		return $s;
	}
	if ($op == 5)    # add or remove a level in one list or both
	{
		my $both = rint(2);
		for my $f ($both ? ('m', 'k') : (pick('m', 'k')))
		{
			if (rint(2)) { $s =~ s/(^|,)$f=\{([^}]*)\}/$1$f={$2,2}/; }
			else { $s =~ s/(^|,)$f=\{([^},]*),([^}]*)\}/$1$f={$2}/; }
		}
		return $s;
	}
	if ($op == 6) { my $f = pick('seed', 'v'); my $val = pick(@num_values); $s =~ s/(^|,)$f=-?\d*/$1$f=$val/; return $s; }
	if ($op == 7)    # flip one hex digit (may break the zero-parent rule or the tail)
	{
		if ($s =~ /:([0-9a-f]+)$/)
		{
			my $at = $-[1] + rint(length $1);
			substr($s, $at, 1) = pick(split //, '0123456789abcdef');
		}
		return $s;
	}
	if ($op == 8)    # set one bit of the array
	{
		if ($s =~ /:([0-9a-f]+)$/)
		{
			my $bits = pack('H*', $1);
			setbit(\$bits, rint(8 * length $bits));
			$s =~ s/:[0-9a-f]+$/':' . unpack('H*', $bits)/e;
		}
		return $s;
	}
	if ($op == 9) { return $s . pick('0', '00', 'f', 'ff', 'g', ' ', "\n", 'x'); }
	if ($op == 10) { return substr($s, 0, $len - 1 - rint(2)); }
	if ($op == 11) { $s =~ s/:([0-9a-f]+)$/':' . uc($1)/e; return $s; }
	if ($op == 12) { $s =~ s/^(m=\{[^}]*\}),(k=\{[^}]*\}),/$2,$1,/; return $s; }
	if ($op == 13) { return pick(' ', "\t", "\n", '  ') . $s . pick('', ' ', "\n", "\t"); }
	if ($op == 14) { $s =~ s/\{/pick('{', '[', '(', '{{', '')/e; return $s; }
	return $s . ',' . pick(@text_seeds);
}

my @text_cases = mutated_cases(700, \&mutate_text, \@text_seeds, 3);

# ---------------------------------------------------------------------------
# binary payloads
# ---------------------------------------------------------------------------

my @bin_seeds = map { pack('H*', $_) } split /\n/, $node->safe_psql('postgres', q{
	SELECT encode(bloomtree_send(t), 'hex') FROM (VALUES
		(bloomtree_from_array(ARRAY(SELECT generate_series(1, 20))::bigint[], ARRAY[16, 4, 3], ARRAY[3, 2, 2], -5)),
		(bloomtree_from_array(ARRAY(SELECT generate_series(1, 300))::bigint[], ARRAY[300, 4, 3], ARRAY[6, 3, 2])),
		(bloomtree_from_array(ARRAY(SELECT generate_series(1, 50))::bigint[], ARRAY[100, 70, 2], ARRAY[2, 1, 1])),
		(bloomtree_from_array(ARRAY['x', 'y'], ARRAY[64], ARRAY[3], 9)),
		(bloomtree_empty(ARRAY[9, 3], ARRAY[1, 4]))) v(t)});
for my $t (@trees)
{
	push @bin_seeds, binary_payload(@$t, pick('canonical', 'raw', 'range'));
}

sub mutate_binary
{
	my ($p) = @_;
	my $op  = rint(12);
	my $len = length $p;
	my $d   = $len >= 2 ? ord(substr($p, 1, 1)) : 0;
	$d = 1 unless $d >= 1 && $d <= 8;
	my $hl  = 8 + 12 * $d;
	if ($op == 0) { return join '', map { chr(rint(256)) } 1 .. rint(64); }
	if ($op == 1) { return substr($p, 0, rint($len)); }
	if ($op == 2 && $len)    # flip a bit, header or stream
	{
		my $at = rint($len);
		# in an m field only the low byte: a valid tree of 2^30 bits would take
		# the oracle (and the text comparison) gigabytes
		$at = 11 + 12 * int(($at - 8) / 12) if $at >= 8 && $at < $hl && ($at - 8) % 12 < 3;
		substr($p, $at, 1) = chr(ord(substr($p, $at, 1)) ^ (1 << rint(8)));
		return $p;
	}
	if ($op == 3) { return $p . join '', map { chr(rint(256)) } 1 .. 1 + rint(3); }
	if ($op == 4 && $len >= 8) { substr($p, rint(4), 1) = chr(pick(0, 1, 2, 8, 9, 255)); return $p; }
	if ($op == 5 && $len >= $hl)    # a level's m or k
	{
		my $a = rint($d);
		if (rint(2)) { substr($p, 8 + 12 * $a, 4) = pack('N', pick(0, 1, 2, 3, 64, 65536, 2**31, 2**32 - 1)); }
		else { substr($p, 12 + 12 * $a, 1) = chr(pick(0, 1, 2, 32, 33, 255)); }
		return $p;
	}
	if ($op == 6 && $len >= $hl)    # a level's mode or probability
	{
		my $a = rint($d);
		if (rint(2)) { substr($p, 13 + 12 * $a, 1) = chr(pick(0, 1, 2, 3, 4, 255)); }
		else { substr($p, 14 + 12 * $a, 2) = pack('n', pick(0, 1, 2, 32768, 65534, 65535)); }
		return $p;
	}
	if ($op == 7 && $len >= $hl)    # a level's stream length
	{
		my $a = rint($d);
		my $nb = unpack('N', substr($p, 16 + 12 * $a, 4));
		substr($p, 16 + 12 * $a, 4) = pack('N', pick($nb + 1, $nb - 1, 0, 4, 2**32 - 1) & 0xFFFFFFFF);
		return $p;
	}
	if ($op == 8 && $len > $hl) { substr($p, -1, 1) = chr(rint(256)); return $p; }
	if ($op == 9 && $len > $hl + 4) { substr($p, $hl, 4) = "\xff\xff\xff\xff"; return $p; }
	if ($op == 10) { return substr($p, 0, $hl); }
	return $p;
}

my @bin_cases = mutated_cases(450, \&mutate_binary, \@bin_seeds, 2);

# ---------------------------------------------------------------------------
# run everything inside the server, then check every outcome against the oracle
# ---------------------------------------------------------------------------

run_type_cases(node => $node, dir => $dir, type => 'bloomtree', col => 't',
	text => \@text_cases, binary => \@bin_cases);
check_alive($node);
my $class_ok = sub {
	my ($state, $msg) = @_;
	return $state =~ /^22/ || $state eq '54000';
};
check_type_outcomes(
	node              => $node,
	text              => \@text_cases,
	binary            => \@bin_cases,
	text_verdict      => \&text_verdict,
	text_state_ok     => sub { $class_ok->(@_) || ($_[0] eq '0A000' && $_[1] =~ /scheme version/) },
	text_state_what   => 'class 22 or 54000',
	binary_expected   => \&binary_decode,
	# the send form may code the same bits otherwise (RAW or RANGE)
	send_ok           => sub { my $resent = binary_decode(pack('H*', $_[0])); defined $resent && $resent eq $_[2] },
	send_what         => 'send gives a coding of other bits',
	binary_state_ok   => $class_ok,
	binary_state_what => 'class 22 or 54000',
	min_binary_accepted => 30);

# non-canonical codings (RAW instead of RANGE, other probabilities) are accepted
# and stored canonically: equal to the tree built from the same bits as text
my @noncanon;
for my $t (@trees[ 0 .. 3 ])
{
	push @noncanon, [ binary_payload(@$t, 'raw'), render_text(@$t) ];
	push @noncanon, [ binary_payload(@$t, 'range'), render_text(@$t) ];
}
for my $j (0 .. $#noncanon)
{
	write_copy_file("$dir/nc_$j.copy", $noncanon[$j][0]);
	my $same = $node->safe_psql('postgres', qq{
		CREATE TEMP TABLE nc (t bloomtree);
		COPY nc FROM '$dir/nc_$j.copy' (FORMAT binary);
		SELECT t = '$noncanon[$j][1]'::bloomtree AND bloomtree_send(t) = bloomtree_send('$noncanon[$j][1]'::bloomtree) FROM nc;});
	is($same, 't', "non-canonical coding $j stored canonically");
}

# binary COPY round trip of a table of trees
$node->safe_psql('postgres', qq{
	CREATE TABLE trees AS
		SELECT g, bloomtree_from_array(ARRAY(SELECT generate_series(1, g * 7))::bigint[],
		                               ARRAY[50 + g, 4, 3], ARRAY[4, 2, 2], g) AS t
		FROM generate_series(1, 30) g;
	COPY trees TO '$dir/trees.copy' (FORMAT binary);
	CREATE TABLE trees2 (LIKE trees);
	COPY trees2 FROM '$dir/trees.copy' (FORMAT binary);});
is($node->safe_psql('postgres', 'SELECT count(*) FROM trees JOIN trees2 USING (g) WHERE trees.t = trees2.t'),
	'30', 'binary COPY round trip keeps every tree');

$node->stop;
done_testing();
