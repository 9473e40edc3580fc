# test/t/InputFuzz.pm
#   The harness of the input-function fuzz tests (011_input_fuzz.pl,
#   060_deletable_fuzz.pl, 070_frequency_fuzz.pl, 040_bloomtree_fuzz.pl):
#   mutation chains over seed inputs, the files the cases travel in (a COPY
#   text file of (id, input) rows, a one-row COPY BINARY file per payload),
#   the PL/pgSQL loops that feed every case to the server inside an exception
#   block and record its outcome, reading the outcomes back, and the check of
#   a text outcome against a verdict; the node they run in, the whole run of
#   one type's text and binary cases, and the check that the server survived.
#   Each test keeps its own seeds, mutations, oracle and assertions; the
#   random numbers come from Perl's rand (drand48 on every platform), seeded
#   by the test with srand.
package InputFuzz;

use strict;
use warnings;
use Exporter 'import';
use Test::More;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;

our @EXPORT = qw(rint pick mutated_cases copy_escape write_copy_file write_text_cases
  text_input_loop binary_input_loop fetch_outcomes check_text_outcome report_outcomes
  fuzz_node check_alive run_type_cases check_type_outcomes char_mutation);

# fuzz_node($name): a started cluster named $name with the extension created,
# and a temporary directory for the case files: ($node, $dir)
sub fuzz_node
{
	my ($name) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION bloomsample');
	return ($node, PostgreSQL::Test::Utils::tempdir());
}

# check_alive($node): one test that the server still answers after the fuzz
# inputs, one that its log shows no crashed backend
sub check_alive
{
	my ($node) = @_;
	is($node->safe_psql('postgres', 'SELECT 1'), '1', 'server alive after the fuzz inputs');
	ok(!$node->log_contains('terminated by signal|was terminated|PANIC'), 'no backend crashed');
}

# rint($n): a whole number in [0, $n)
sub rint { my ($n) = @_; return int(rand($n)); }

# pick(@values): one of the values, uniformly
sub pick { return $_[ rint(scalar @_) ]; }

# char_mutation($s, $op, @chars): mutation $op of the text $s when it is one
# of the character-level ones: 0 truncate at a random length, 1 delete a
# character, 2 insert one of @chars, 3 replace a character by one of @chars;
# undef for another $op (or 1 and 3 on an empty $s)
sub char_mutation
{
	my ($s, $op, @chars) = @_;
	my $len = length $s;
	if ($op == 0) { return substr($s, 0, rint($len)); }
	if ($op == 1 && $len) { substr($s, rint($len), 1) = ''; return $s; }
	if ($op == 2) { substr($s, rint($len + 1), 0) = pick(@chars); return $s; }
	if ($op == 3 && $len) { substr($s, rint($len), 1) = pick(@chars); return $s; }
	return undef;
}

# mutated_cases($n, \&mutate, \@seeds, $max_extra, @args): the seeds, then
# until there are $n cases: a seed picked at random, mutated by a chain of
# 1 + rint($max_extra) calls $mutate->($case, @args)
sub mutated_cases
{
	my ($n, $mutate, $seeds, $max_extra, @args) = @_;
	my @out = @$seeds;
	while (@out < $n)
	{
		my $s = pick(@$seeds);
		$s = $mutate->($s, @args) for 1 .. 1 + rint($max_extra);
		push @out, $s;
	}
	return @out;
}

# copy_escape($s): $s as a field of COPY's text format
sub copy_escape
{
	my ($s) = @_;
	$s =~ s/\\/\\\\/g;
	$s =~ s/\t/\\t/g;
	$s =~ s/\n/\\n/g;
	$s =~ s/\r/\\r/g;
	return $s;
}

# write_copy_file($path, $payload): a one-row, one-column COPY BINARY file
sub write_copy_file
{
	my ($path, $p) = @_;
	open my $fh, '>:raw', $path or die "$path: $!";
	print $fh "PGCOPY\n\377\r\n\0", pack('N N', 0, 0), pack('n', 1), pack('N', length $p), $p,
	  pack('n', 0xFFFF);
	close $fh;
}

# write_text_cases($path, \@cases[, $layer]): a COPY text file of rows
# (index, case); $layer is the file's PerlIO layer (default none: bytes)
sub write_text_cases
{
	my ($path, $cases, $layer) = @_;
	open my $fh, '>' . ($layer // ''), $path or die "$path: $!";
	printf $fh "%d\t%s\n", $_, copy_escape($cases->[$_]) for 0 .. $#$cases;
	close $fh;
}

# text_input_loop(%a): a PL/pgSQL FOR loop (for a DO block that declares
# "r record" and the variable $a{var} of type $a{type}) casting the input of
# every row (id, input) of $a{cases} to the type, in an exception block each:
# success inserts into $a{out} ($a{key} r.id, true, NULL, NULL, @{$a{accepted}}),
# an error ($a{key} r.id, false, SQLSTATE, SQLERRM) (the other columns NULL).
# $a{key}: leading values of the out table's rows ("'cms', "; default none).
sub text_input_loop
{
	my (%a) = @_;
	my $key = $a{key} // '';
	my $accepted = join(', ', @{ $a{accepted} });
	return qq{
		FOR r IN SELECT * FROM $a{cases} ORDER BY id LOOP
			BEGIN
				$a{var} := r.input::$a{type};
				INSERT INTO $a{out} VALUES (${key}r.id, true, NULL, NULL, $accepted);
			EXCEPTION WHEN OTHERS THEN
				INSERT INTO $a{out} VALUES (${key}r.id, false, SQLSTATE, SQLERRM);
			END;
		END LOOP;};
}

# binary_input_loop(%a): a PL/pgSQL FOR loop (for a DO block that declares
# "r record") loading each file $a{dir}/$a{prefix}<i>.copy, i in
# [0, $a{last}], with COPY ... (FORMAT binary) into the one-column table
# $a{target}, in an exception block each: success inserts into $a{out}
# ($a{key} r.id, true, NULL, NULL, @{$a{accepted}}) selected from $a{target},
# an error ($a{key} r.id, false, SQLSTATE, SQLERRM).
sub binary_input_loop
{
	my (%a) = @_;
	my $key = $a{key} // '';
	my $accepted = join(', ', @{ $a{accepted} });
	return qq{
		FOR r IN SELECT i AS id, format('%s/$a{prefix}%s.copy', '$a{dir}', i) AS path
		         FROM generate_series(0, $a{last}) i LOOP
			BEGIN
				DELETE FROM $a{target};
				EXECUTE format('COPY $a{target} FROM %L (FORMAT binary)', r.path);
				INSERT INTO $a{out} SELECT ${key}r.id, true, NULL, NULL, $accepted FROM $a{target};
			EXCEPTION WHEN OTHERS THEN
				INSERT INTO $a{out} VALUES (${key}r.id, false, SQLSTATE, SQLERRM);
			END;
		END LOOP;};
}

# run_type_cases(%a): every text case of @{$a{text}} cast to the type $a{type}
# (text_input_loop) and every payload of @{$a{binary}} loaded by COPY BINARY
# into a column $a{col} of that type (binary_input_loop), inside the server of
# $a{node}, the case files in $a{dir}.  Outcomes go to the tables text_out
# (id, ok, state, msg, out, rt) and bin_out (id, ok, state, msg, out, sent,
# rt): an accepted input's text form, its <type>_send in hex (binary) and
# whether its text form reads back equal.
sub run_type_cases
{
	my (%a) = @_;
	my ($node, $dir, $type, $col, $bin) = @a{qw(node dir type col binary)};
	my $text_file = "$dir/text_cases.tsv";
	write_text_cases($text_file, $a{text});
	write_copy_file("$dir/bin_$_.copy", $bin->[$_]) for 0 .. $#$bin;
	$node->safe_psql('postgres', qq{
	CREATE TABLE text_cases (id int, input text);
	COPY text_cases FROM '$text_file';
	CREATE TABLE text_out (id int, ok bool, state text, msg text, out text, rt bool);
	DO \$\$
	DECLARE r record; v $type;
	BEGIN}
	. text_input_loop(cases => 'text_cases', out => 'text_out', type => $type, var => 'v',
		accepted => [ 'v::text', "v::text::$type = v" ])
	. qq{
	END
	\$\$;
	CREATE TABLE bin_target ($col $type);
	CREATE TABLE bin_out (id int, ok bool, state text, msg text, out text, sent text, rt bool);
	DO \$\$
	DECLARE r record;
	BEGIN}
	. binary_input_loop(dir => $dir, prefix => 'bin_', last => $#$bin, target => 'bin_target',
		out => 'bin_out',
		accepted => [ "${col}::text", "encode(${type}_send($col), 'hex')", "${col}::text::$type = $col" ])
	. qq{
	END
	\$\$;
	});
}

# check_type_outcomes(%a): the outcomes run_type_cases recorded, against the
# test's oracle.  Every case has an outcome; text case i is checked by
# check_text_outcome with the verdict $a{text_verdict}->(case) and
# $a{text_state_ok} ($a{text_state_what}); binary payload i, whose text form
# is $a{binary_expected}->(payload) (undef: invalid), is accepted only when
# valid, printed as expected, sent back as $a{send_ok}->($sent_hex, $payload,
# $expected) allows (else the failure $a{send_what}) and read back from its
# text, or rejected with an SQLSTATE $a{binary_state_ok}->($state, $msg)
# takes ($a{binary_state_what}).  Then report_outcomes, and that at least 30
# valid text inputs were accepted, 300 text inputs rejected,
# $a{min_binary_accepted} payloads accepted and 200 rejected.
sub check_type_outcomes
{
	my (%a) = @_;
	my ($node, $text, $bin) = @a{qw(node text binary)};
	my (%tally, @failures);

	my $text_out = fetch_outcomes($node, 'text_out', undef, 'msg', 'out', 'rt::text');
	is(scalar(keys %$text_out), scalar(@$text), 'every text input has an outcome');
	for my $i (0 .. $#$text)
	{
		check_text_outcome(\%tally, \@failures, $i, $text->[$i], $a{text_verdict}->($text->[$i]),
			$text_out->{$i}, $a{text_state_ok}, $a{text_state_what});
	}

	my $bin_out = fetch_outcomes($node, 'bin_out', undef, 'msg', 'out', 'sent', 'rt::text');
	is(scalar(keys %$bin_out), scalar(@$bin), 'every binary payload has an outcome');
	for my $i (0 .. $#$bin)
	{
		my $expected = $a{binary_expected}->($bin->[$i]);
		my ($ok, $state, $msg, $out, $sent, $rt) = @{ $bin_out->{$i} // [] };
		my $hex = unpack('H*', $bin->[$i]);
		$hex = substr($hex, 0, 60) . '...' if length $hex > 60;
		if (!defined $ok) { push @failures, "binary #$i: no outcome"; next; }
		if ($ok eq 't')
		{
			$tally{'binary accepted'}++;
			if (!defined $expected)
			{
				push @failures, "binary #$i accepted but invalid per the format: $hex";
				next;
			}
			push @failures, "binary #$i printed as '$out', expected '$expected'" if $out ne $expected;
			push @failures, "binary #$i: $a{send_what}" unless $a{send_ok}->($sent, $bin->[$i], $expected);
			push @failures, "binary #$i does not round-trip through text" if $rt ne 'true';
		}
		else
		{
			$tally{"binary rejected $state"}++;
			push @failures, "binary #$i rejected but valid ($expected): $state $msg" if defined $expected;
			push @failures, "binary #$i: SQLSTATE $state is not $a{binary_state_what}: $msg"
			  unless $a{binary_state_ok}->($state, $msg);
		}
	}

	report_outcomes(\%tally, \@failures, '');
	# the fuzzing exercised both sides of every input function
	cmp_ok(($tally{'text accepted (valid)'} // 0), '>=', 30, 'many text inputs accepted');
	my $text_rejected = 0;
	$text_rejected += $tally{$_} for grep { /^text rejected/ } keys %tally;
	cmp_ok($text_rejected, '>=', 300, 'many text inputs rejected');
	cmp_ok(($tally{'binary accepted'} // 0), '>=', $a{min_binary_accepted}, 'many binary payloads accepted');
	cmp_ok(@$bin - ($tally{'binary accepted'} // 0), '>=', 200, 'many binary payloads rejected');
}

# fetch_outcomes($node, $table, $where, @cols): { id => [ok, state, @cols] }
# of the rows of $table (columns id, ok, state, @cols) that satisfy $where
# (SQL, or undef for all); NULL reads as '', newlines and tabs as spaces.
# The fields are separated by the ASCII unit separator: error messages quote
# the input, which may hold any printable character.
sub fetch_outcomes
{
	my ($node, $table, $where, @cols) = @_;
	my %out;
	my $sql = "SELECT concat_ws(chr(31), id, ok, coalesce(state, ''), "
	  . join(', ', map { "coalesce(translate($_, E'\\n\\t', '  '), '')" } @cols)
	  . ") FROM $table" . (defined $where ? " WHERE $where" : '') . " ORDER BY id";
	for my $line (split /\n/, $node->safe_psql('postgres', $sql))
	{
		my ($id, @rest) = split /\x1f/, $line, -1;
		$out{$id} = \@rest;
	}
	return \%out;
}

# check_text_outcome($tally, $failures, $i, $in, $verdict, $outcome, $state_ok,
# $state_what): the outcome [ok, state, msg, out, rt] of text input #$i ($in),
# whose oracle verdict is 'valid' (canonical), 'either' (valid, not
# canonical) or 'invalid', counted into %$tally and its disagreements pushed
# onto @$failures: invalid accepted, no round trip, canonical input printed
# otherwise, valid rejected, or an SQLSTATE $state_ok->($state, $msg) refuses
# ($state_what names the classes it takes).
sub check_text_outcome
{
	my ($tally, $failures, $i, $in, $verdict, $outcome, $state_ok, $state_what) = @_;
	my ($ok, $state, $msg, $out, $rt) = @{ $outcome // [] };
	my $shown = $in =~ s/\n/\\n/gr =~ s/\t/\\t/gr;
	$shown = substr($shown, 0, 100) . '...' if length $shown > 100;
	if (!defined $ok)
	{
		push @$failures, "text #$i: no outcome";
	}
	elsif ($ok eq 't')
	{
		$tally->{"text accepted ($verdict)"}++;
		push @$failures, "text #$i accepted but invalid per the format: '$shown'" if $verdict eq 'invalid';
		push @$failures, "text #$i does not round-trip: '$shown'" if $rt ne 'true';
		push @$failures, "text #$i: canonical input printed as '$out': '$shown'"
		  if $verdict eq 'valid' && $out ne $in;
	}
	else
	{
		$tally->{"text rejected ($verdict) $state"}++;
		push @$failures, "text #$i rejected but valid: '$shown': $state $msg" if $verdict eq 'valid';
		push @$failures, "text #$i: SQLSTATE $state is not $state_what: '$shown': $msg"
		  unless $state_ok->($state, $msg);
	}
}

# report_outcomes($tally, $failures, $label): the tally as a diagnostic and
# one test that no outcome disagreed with the oracle (the first 40 shown);
# $label prefixes both ('' or "type: ")
sub report_outcomes
{
	my ($tally, $failures, $label) = @_;
	(my $what = $label) =~ s/: $/ /;
	diag("${what}outcomes: " . join(', ', map { "$_: $tally->{$_}" } sort keys %$tally));
	is(scalar(@$failures), 0, "${label}every fuzz outcome agrees with the oracle")
	  or diag(join "\n", @$failures[ 0 .. ($#$failures < 40 ? $#$failures : 39) ]);
}

1;
