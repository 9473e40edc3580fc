# test/t/004_docs.pl
#   The documentation matches the code and stands alone.
#
#   Links: every relative link of the repository's Markdown files points to a
#   file inside the repository (and to a heading that exists, for #anchors),
#   no relative path written in any file climbs above the repository's root,
#   and every Markdown file a text names is one of the repository's.
#
#   Code map: every file under src/ and test/ is covered by a row of the code
#   map of docs/architecture.md (the test names each file that is not), and
#   every src/ or test/ path of the code map names a file.
#
#   Size limits: no file under src/ above 900 lines and no C function above
#   150 lines, unless the table "Longer on purpose" of docs/architecture.md
#   names it with a reason (and every row of that table names one).
#
#   One name per room: no two files under src/ share a base name (a plural
#   's' aside).
#
#   Call graph: the C files of src/ and src/core/ call each other in no
#   circle (a file and its header of the same name are one room), so each
#   layer calls only down; the test names the files and calls of a circle.
#
#   README.md's "Reference" section names everything the extension installs,
#   checked against the catalog of a fresh install (and the reverse):
#    - every member of the extension (functions, aggregates, operators,
#      types, operator classes and families, access methods, tables, views)
#      is named in the reference: a function as `name(`, an operator as a
#      token of a code span, any other object in a code span;
#    - every function whose arguments all have names appears with its exact
#      signature, `name(arg type, ... DEFAULT x)` (overloads that differ in
#      one argument's type as `type1 | type2`, double precision as float8),
#      followed on the same line by its result, "→ `result`"; a function
#      returning a row of OUT columns has each column in a code span of the
#      same subsection;
#    - every member has a one-line description in the catalog (COMMENT ON),
#      which psql's \df+, \do+, \dT+ and \dAc+ show;
#    - every setting (bloomsample.*) has a line with its default as SHOW
#      prints it and each of its enum values, in code spans;
#    - every reloption registered in src/*.c has a line with its default, and
#      the access method accepts that default (and rejects an unknown name);
#    - every `name(` of the extension's prefixes and every bloomsample.*
#      setting the reference mentions exists.
# So a new function, setting or reloption is documented in the same change.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# ---- links ---------------------------------------------------------------------
# GitHub's anchor of a heading: lower case, punctuation dropped, spaces to '-'
sub anchors
{
	my ($text) = @_;
	my (%a, %seen);
	my $in_code = 0;
	for my $l (split /\n/, $text)
	{
		$in_code = !$in_code if $l =~ /^```/;
		next if $in_code || $l !~ /^#+\s+(.*)$/;
		my $s = lc $1;
		$s =~ s/[^\w\- ]//g;
		$s =~ s/ /-/g;
		my $n = $seen{$s}++;
		$a{ $n ? "$s-$n" : $s } = 1;
	}
	return \%a;
}

my @md = grep { -f } ('README.md', 'CHANGELOG.md', glob('docs/*.md'), glob('test/*/README.md'));
ok(@md >= 4, 'Markdown files: ' . join(' ', @md));
for my $f (@md)
{
	my $text = slurp_file($f);
	utf8::decode($text);
	(my $dir = $f) =~ s{[^/]*$}{};
	while ($text =~ /\]\(([^)\s]+)\)/g)
	{
		my $link = $1;
		next if $link =~ m{^[a-z]+://};
		my ($path, $anchor) = $link =~ /^([^#]*)(?:#(.*))?$/;
		my $target = $path eq '' ? $f : $dir . $path;
		1 while $target =~ s{(^|/)(?!\.\./)[^/]+/\.\./}{$1};
		ok($target !~ m{^\.\./} && -e $target, "$f: link $link is inside the repository");
		next unless defined $anchor && -f $target;
		my $t = slurp_file($target);
		utf8::decode($t);
		ok(anchors($t)->{$anchor}, "$f: link $link names a heading of $target");
	}
}
# Every relative path written in a file of the repository (code, SQL, tests,
# docs) names something inside it once resolved from the file's folder
# (its first component exists), and every
# Markdown file a text names is one of the repository's.
my @files = grep { !m{^(tmp_check|results|log|tmp_regress|\.tmp|test/unit/bin)/} && -f && !-B }
  map { s{^\./}{}r } split /\n/, (`git ls-files 2>/dev/null` || `find . -type f -not -path './.git/*'`);
my %md_names = map { (m{([^/]+)$})[0] => 1 } grep { /\.md$/ } @files;
for my $f (@files)
{
	my $text = slurp_file($f);
	my $depth = () = $f =~ m{/}g;    # folders between the root and $f
	my @outside;
	my @dirs = split m{/}, $f;
	pop @dirs;
	while ($text =~ m{(?<![\w.])((?:\.\./)+)([\w.-]*)}g)
	{
		my ($up, $name) = (length($1) / 3, $2);
		my $target = join('/', @dirs[ 0 .. $#dirs - $up ], $name) =~ s{^/}{}r;
		push @outside, "$1$name" if $up > $depth || !-e ($target eq '' ? '.' : $target);
	}
	while ($text =~ m{(?<![\w/.-])([A-Za-z][\w-]*\.md)\b}g)
	{
		push @outside, $1 unless $md_names{$1};
	}
	ok(!@outside, "$f names no file outside the repository")
	  or diag("$f: " . join(', ', @outside));
}

# ---- the code map of docs/architecture.md --------------------------------------
# Every file under src/ and test/ (git's files, tracked or new and not ignored;
# without git, every file there but what .gitignore names: the build's output)
# is covered by a row of the code map: a backticked path in the first cell of
# a table row of its "## Code map" section, where `{a,b}` stands for each of a
# and b and `*` for any run of characters but '/'.  The reverse too: a path of
# a row under src/ or test/ names at least one file (no row outlives its file).

# the regular expression of a glob without braces (unanchored source)
sub glob_src
{
	my ($glob) = @_;
	return join '', map { $_ eq '*' ? '[^/]*' : $_ eq '?' ? '[^/]' : quotemeta } split /([*?])/, $glob;
}

# a glob's brace alternatives expanded: a.{c,h} -> a.c, a.h
sub expand_braces
{
	my ($glob) = @_;
	return ($glob) unless $glob =~ /^(.*?)\{([^{}]*)\}(.*)$/;
	my ($head, $alts, $tail) = ($1, $2, $3);
	return map { expand_braces("$head$_$tail") } split /,/, $alts, -1;
}

my @tree_files;
if (my $git = `git ls-files --cached --others --exclude-standard -- src test 2>/dev/null`)
{
	@tree_files = split /\n/, $git;
}
else
{
	my @ignored;
	for my $p (grep { length && !/^#/ } split /\n/, (-f '.gitignore' ? slurp_file('.gitignore') : ''))
	{
		my $anchored = $p =~ s{^/}{};
		$p =~ s{/$}{};
		my $re = glob_src($p);
		push @ignored, $anchored ? qr{^$re(?:/|$)} : qr{(?:^|/)$re(?:/|$)};
	}
	@tree_files = grep {
		my $f = $_;
		!grep { $f =~ $_ } @ignored
	} map { s{^\./}{}r } split /\n/, `find ./src ./test -type f`;
}
@tree_files = sort @tree_files;
ok(@tree_files > 50, scalar(@tree_files) . ' files under src/ and test/');

my $arch = slurp_file('docs/architecture.md');
my ($codemap) = $arch =~ /^## Code map\n(.*?)(?=^## |\z)/ms;
ok(defined $codemap, 'docs/architecture.md has a "## Code map" section');
my @row_globs;
for my $row (grep { /^\|/ && !/^\|\s*-/ } split /\n/, $codemap // '')
{
	my ($first) = $row =~ /^\|([^|]*)\|/;
	push @row_globs, map { expand_braces($_) } $first =~ /`([^`]+)`/g;
}
my %row_re = map { $_ => qr/^@{[ glob_src($_) ]}$/ } @row_globs;
my @no_row = grep {
	my $f = $_;
	!grep { $f =~ $_ } values %row_re
} @tree_files;
ok(!@no_row, 'every file under src/ and test/ has a row in the code map of docs/architecture.md')
  or diag("no row of docs/architecture.md's code map covers these files; add a row (`path` | layer | what it holds) for each:\n"
	  . join('', map { "  $_\n" } @no_row));
my @stale = grep {
	my $re = $row_re{$_};
	m{^(src|test)/} && !grep { $_ =~ $re } @tree_files
} sort keys %row_re;
ok(!@stale, 'every src/ and test/ path of the code map names a file')
  or diag("these paths of docs/architecture.md's code map name no file (renamed or removed?):\n"
	  . join('', map { "  $_\n" } @stale));

# ---- one name per room --------------------------------------------------------
# No two files under src/ (src/core/ and src/sql/ included) share a base name,
# nor one that differs only by a plural 's' (bst_images.c beside
# core/bst_image.c): a glue file named like a core file reads as the same room.
# The base name is the file's name without its folder and extension, so a .c
# and its .h of the same folder are one file here (issue 39).
{
	my %by_base;    # base name, a trailing 's' dropped => { path without extension => 1 }
	for my $f (grep { m{^src/} } @tree_files)
	{
		my ($stem, $base) = $f =~ m{^((?:.*/)?([^/]+?))(?:\.[^./]*)?$};
		(my $key = $base) =~ s/s$//;
		$by_base{$key}{$stem} = 1;
	}
	my @twins = map { join(' ~ ', sort keys %{ $by_base{$_} }) }
	  grep { keys %{ $by_base{$_} } > 1 } sort keys %by_base;
	ok(!@twins, 'no two files under src/ share a base name')
	  or diag("these files under src/ share a base name (rename one; the glue's after what it does with the core's):\n"
		  . join('', map { "  $_\n" } @twins));
}

# ---- size limits ---------------------------------------------------------------
# No file under src/ above 900 lines and no C function above 150 lines (from
# the line of its name to its closing brace), unless a row of the table
# "Longer on purpose" of docs/architecture.md names it with a reason: a first
# cell `path` (a file) or `path:function` (a function), a reason in the second.
my ($longer) = $arch =~ /^### Longer on purpose\n(.*?)(?=^##|\z)/ms;
ok(defined $longer, 'docs/architecture.md has a "### Longer on purpose" table');
my %longer_ok;
for my $row (grep { /^\|/ && !/^\|\s*-/ } split /\n/, $longer // '')
{
	my ($what, $why) = $row =~ /^\|\s*`([^`]+)`\s*\|\s*([^|]*?)\s*\|/ or next;
	$longer_ok{$what} = $why if length $why;
}
my (@long_files, @long_funcs, %longer_seen);
for my $f (grep { m{^src/} } @tree_files)
{
	my @lines = split /\n/, slurp_file($f), -1;
	pop @lines if @lines && $lines[-1] eq '';
	if (@lines > 900)
	{
		$longer_seen{$f} = 1;
		push @long_files, "$f: " . scalar(@lines) . " lines" unless $longer_ok{$f};
	}
	next unless $f =~ /\.c$/;
	my ($name, $start);
	for my $i (0 .. $#lines)
	{
		if ($lines[$i] =~ /^\{/)
		{
			($name, $start) = ('?', $i);
			for (my $j = $i - 1; $j >= 0 && $j >= $i - 8; $j--)
			{
				next unless $lines[$j] =~ /^(?:[A-Za-z_][\w \*]*[\s\*])?([A-Za-z_]\w*)\(/;
				($name, $start) = ($1, $j);
				last;
			}
		}
		elsif ($lines[$i] =~ /^\}/ && defined $start)
		{
			my $n = $i - $start + 1;
			if ($n > 150)
			{
				$longer_seen{"$f:$name"} = 1;
				push @long_funcs, "$f:$name: $n lines" unless $longer_ok{"$f:$name"};
			}
			undef $start;
		}
	}
}
ok(!@long_files, 'no file under src/ above 900 lines unless docs/architecture.md says why')
  or diag("split these, or add a row (`path` | reason) to \"Longer on purpose\" in docs/architecture.md:\n"
	  . join('', map { "  $_\n" } @long_files));
ok(!@long_funcs, 'no function under src/ above 150 lines unless docs/architecture.md says why')
  or diag("split these, or add a row (`path:function` | reason) to \"Longer on purpose\" in docs/architecture.md:\n"
	  . join('', map { "  $_\n" } @long_funcs));
my @longer_stale = grep { !$longer_seen{$_} } sort keys %longer_ok;
ok(!@longer_stale, 'every row of "Longer on purpose" names a file or function above the limit')
  or diag("these rows of \"Longer on purpose\" name nothing above the limit (split, renamed or removed?):\n"
	  . join('', map { "  $_\n" } @longer_stale));

# ---- "Repeated on purpose": names that exist, pairs that are named -------------
# (issue 39; a block of its own.)  Each entry (a "- " item) of "### Repeated on
# purpose" in docs/architecture.md names a family of look-alike places as
# `src/path:name` (a function, or a struct, macro or static table).  Every such
# name must be defined in its file.  Where the tool `duplicates` is on PATH
# (not in CI), every pair it reports under src/ outside src/sql/ must have both
# sides named in one entry: a side is named by any definition its line range
# overlaps (the lines above a definition, e.g. PG_FUNCTION_INFO_V1, count as
# its own).
{
	# the definitions of a C file, in order: [[names], first line, last line]
	my $c_definitions = sub {
		my ($file) = @_;
		my @lines = split /\n/, slurp_file($file), -1;
		my (@defs, $open);
		for my $i (0 .. $#lines)
		{
			my $l = $lines[$i];
			if (!$open && $l =~ /^#\s*define\s+(\w+)/)
			{
				my ($name, $j) = ($1, $i);
				$j++ while $j < $#lines && $lines[$j] =~ /\\$/;
				push @defs, [ [$name], $i + 1, $j + 1 ];
				next;
			}
			if (!$open && $l =~ /^\{/)
			{
				my @names;
				for (my $j = $i - 1; $j >= 0 && $j >= $i - 8; $j--)
				{
					my $t = $lines[$j];
					last if $t =~ /^\}/ || $t =~ /;\s*$/;
					if ($t =~ /^(?:[A-Za-z_][\w \*]*[\s\*])?([A-Za-z_]\w*)\(/
						|| $t =~ /^(?:typedef\s+)?(?:struct|enum|union)\s+(\w+)/
						|| $t =~ /(\w+)\s*(?:\[[^\]]*\]\s*)*=\s*$/)
					{
						@names = ($1);
						last;
					}
				}
				$open = [ \@names, $i + 1 ];
				next;
			}
			$open = [ [$1], $i + 1 ]
			  if !$open
			  && $l =~ /^(?:static\s+)?(?:const\s+)?[A-Za-z_][\w \*]*?\b(\w+)\s*(?:\[[^\]]*\]\s*)*=\s*\{/;
			if ($open && $l =~ /^\}\s*(\w+)?/)
			{
				push @{ $open->[0] }, $1 if defined $1;
				push @defs, [ $open->[0], $open->[1], $i + 1 ];
				undef $open;
			}
		}
		my $prev = 0;
		for my $d (@defs)
		{
			$d->[1] = $prev + 1;    # the lines above a definition are its own
			$prev = $d->[2];
		}
		$defs[-1][2] = scalar(@lines) if @defs;
		return @defs;
	};

	my ($section) = slurp_file('docs/architecture.md') =~ /^### Repeated on purpose\n(.*?)(?=^##|\z)/ms;
	ok(defined $section, 'docs/architecture.md has a "### Repeated on purpose" list');
	my @entries = map { [ /`(src\/[\w\/.-]+\.[ch]):(\w+)`/g ] } split /\n(?=- )/, $section // '';
	my (@missing, %defs_of);
	for my $e (@entries)
	{
		for (my $i = 0; $i < @$e; $i += 2)
		{
			my ($file, $name) = @$e[ $i, $i + 1 ];
			$defs_of{$file} //= -f $file ? { map { map { $_ => 1 } @{ $_->[0] } } $c_definitions->($file) } : {};
			push @missing, "$file:$name" unless $defs_of{$file}{$name};
		}
	}
	ok(grep({ @$_ } @entries) >= 10, 'the entries of "Repeated on purpose" name their places as `src/path:function`');
	ok(!@missing, 'every function named in "Repeated on purpose" exists in its file')
	  or diag("these names of \"Repeated on purpose\" in docs/architecture.md are not defined in the file named "
		  . "(renamed, moved or merged? name the places as they are now):\n" . join('', map { "  $_\n" } @missing));

  SKIP:
	{
		my $tool = grep { -x "$_/duplicates" } split /:/, $ENV{PATH} // '';
		skip 'duplicates is not on PATH: the pair check runs by hand (docs/testing.md)', 1 unless $tool;
		my $out = `duplicates --repo src --most 200 --seconds 300 2>&1`;
		my (@unnamed, $pairs);
		for my $row (split /\n/, $out)
		{
			my @side = $row =~ /^D\d+ (\S+):(\d+)-(\d+) ~ (\S+):(\d+)-(\d+)/ or next;
			next if $side[0] =~ m{^sql/} || $side[3] =~ m{^sql/};
			$pairs++;
			my @names = map {
				my ($f, $from, $to) = @side[ 3 * $_ .. 3 * $_ + 2 ];
				+{ map { map { ("src/$f:$_" => 1) } @{ $_->[0] } }
					  grep { $_->[1] <= $to && $_->[2] >= $from } $c_definitions->("src/$f") };
			} 0, 1;
			my $named = grep {
				my @t = @$_;
				my @tokens = map { "$t[2 * $_]:$t[2 * $_ + 1]" } 0 .. $#t / 2;
				(grep { $names[0]{$_} } @tokens) && (grep { $names[1]{$_} } @tokens);
			} grep { @$_ } @entries;
			push @unnamed, $row unless $named;
		}
		ok(!@unnamed, "every pair of src/ that duplicates reports (" . ($pairs // 0) . ", outside src/sql/) is named in \"Repeated on purpose\"")
		  or diag("merge these, or name both sides (`src/path:function`) in one entry of \"Repeated on purpose\" "
			  . "in docs/architecture.md, with the reason:\n" . join('', map { "  $_\n" } @unnamed)
			  . ($out =~ /^(incomplete:.*)$/m ? "  ($1)\n" : ''));
	}
}

# ---- the call graph of src/ ----------------------------------------------------
# Calls between the C files of src/ and src/core/ only go down: no circle.
# A file and its header of the same name (foo.c, foo.h) are one room.  A
# function is defined where a line starts with its name (or with a return
# type and its name) and its parameter list is followed by '{'; a call is an
# identifier followed by '(' inside a function's body (comments, strings and
# preprocessor lines left out; macros are not functions here).  A call names
# the room that defines the function: the caller's own when it defines one
# of that name, else the only room with a non-static definition of it in a
# .c file or any definition in a header (a name several rooms define is
# skipped).  The rooms' strongly connected components (Tarjan) must all be
# single rooms.

# the rooms' strongly connected components of more than one room, each sorted
sub call_circles
{
	my ($edges) = @_;    # room => { room => 1 }
	my (%index, %low, %on, @stack, @sccs);
	my $n = 0;
	my %nodes = map { $_ => 1 } keys %$edges, map { keys %$_ } values %$edges;
	my $visit;
	$visit = sub {
		my ($v) = @_;
		$index{$v} = $low{$v} = $n++;
		push @stack, $v;
		$on{$v} = 1;
		for my $w (sort keys %{ $edges->{$v} || {} })
		{
			if (!exists $index{$w})
			{
				$visit->($w);
				$low{$v} = $low{$w} if $low{$w} < $low{$v};
			}
			elsif ($on{$w})
			{
				$low{$v} = $index{$w} if $index{$w} < $low{$v};
			}
		}
		if ($low{$v} == $index{$v})
		{
			my @scc;
			while (1)
			{
				my $w = pop @stack;
				$on{$w} = 0;
				push @scc, $w;
				last if $w eq $v;
			}
			push @sccs, [ sort @scc ] if @scc > 1;
		}
	};
	for my $v (sort keys %nodes)
	{
		$visit->($v) unless exists $index{$v};
	}
	undef $visit;
	return sort { $a->[0] cmp $b->[0] } @sccs;
}

# a C file's definitions (name => static?) and its calls (function => [names])
sub c_functions
{
	my ($text) = @_;
	# comments and literals out (newlines kept), then preprocessor lines
	$text =~ s{(/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')}{
		my $m = $1; $m =~ m{^/} ? "\n" x ($m =~ tr/\n//) : '""'}gse;
	$text =~ s/^[ \t]*#(?:[^\n]*\\\n)*[^\n]*//mg;
	my (%defs, %calls);
	while ($text =~ /^((?:[A-Za-z_][\w \t\*]*[ \t\*])?)([A-Za-z_]\w*)[ \t]*\((?:[^;{}()]++|\((?:[^;{}()]++|\([^;{}()]*\))*\))*\)\s*\{/mg)
	{
		my ($prefix, $name, $open) = ($1, $2, $+[0] - 1);
		my $before = substr($text, 0, $-[0]);
		$before =~ s/.*[;}]//s;
		$defs{$name} = ($before . $prefix) =~ /\bstatic\b/ ? 1 : 0;
		# the body: to the matching brace
		my ($depth, $i) = (0, $open);
		for (; $i < length $text; $i++)
		{
			my $c = substr($text, $i, 1);
			$depth++ if $c eq '{';
			last if $c eq '}' && --$depth == 0;
		}
		my $body = substr($text, $open, $i - $open + 1);
		push @{ $calls{$name} }, $body =~ /\b([A-Za-z_]\w*)\s*\(/g;
		pos($text) = $i + 1;
	}
	return (\%defs, \%calls);
}

# the call edges between the rooms of these files: room => { room => ['caller -> callee', ...] }
sub call_graph
{
	my (%files) = @_;    # path => text
	my (%room_defs, %visible, %room_calls);
	for my $f (sort keys %files)
	{
		(my $room = $f) =~ s/\.[ch]$//;
		my ($defs, $calls) = c_functions($files{$f});
		for my $name (keys %$defs)
		{
			$room_defs{$room}{$name} = 1;
			$visible{$name}{$room} = 1 if $f =~ /\.h$/ || !$defs->{$name};
		}
		for my $fn (keys %$calls)
		{
			push @{ $room_calls{$room}{$fn} }, @{ $calls->{$fn} };
		}
	}
	my %edges;
	for my $room (keys %room_calls)
	{
		for my $fn (keys %{ $room_calls{$room} })
		{
			for my $name (@{ $room_calls{$room}{$fn} })
			{
				next if $room_defs{$room}{$name};
				my @to = keys %{ $visible{$name} || {} };
				next unless @to == 1;
				push @{ $edges{$room}{ $to[0] } }, "$fn -> $name";
			}
		}
	}
	return \%edges;
}

# the checker itself can fail: a known loop, a definition and its calls
is_deeply([ call_circles({ a => { b => 1 }, b => { c => 1 }, c => { a => 1, d => 1 }, d => {} }) ],
	[ [ 'a', 'b', 'c' ] ], 'the call-circle finder finds a circle of three rooms');
is_deeply([ call_circles({ a => { b => 1 }, b => { c => 1 }, c => {} }) ], [],
	'the call-circle finder finds none in a chain');
my ($tdefs, $tcalls) = c_functions("/* f(x) */\nstatic int\nf(int x)\n{\n\treturn g(x) + h(\"k(\");\n}\n"
	  . "extern int g(int x);\nint g(int x) { return x; }\n");
is_deeply([ $tdefs, [ sort @{ $tcalls->{f} } ] ], [ { f => 1, g => 0 }, [ 'g', 'h' ] ],
	'definitions and calls are read from C text (prototypes, comments and strings left out)');

my %c_files = map { $_ => slurp_file($_) } grep { m{^src/(?:core/)?[^/]+\.[ch]$} } @tree_files;
my $call_edges = call_graph(%c_files);
my $ncall_edges = 0;
$ncall_edges += keys %$_ for values %$call_edges;
ok($ncall_edges > 200, scalar(keys %c_files) . " C files of src/, $ncall_edges calls between rooms");
my @circle_diag;
for my $scc (call_circles($call_edges))
{
	my %in = map { $_ => 1 } @$scc;
	push @circle_diag, "circle: @$scc\n";
	for my $from (@$scc)
	{
		for my $to (grep { $in{$_} } sort keys %{ $call_edges->{$from} })
		{
			my %seen = map { $_ => 1 } @{ $call_edges->{$from}{$to} };
			push @circle_diag, "  $from -> $to: " . join(', ', sort keys %seen) . "\n";
		}
	}
}
ok(!@circle_diag, 'no call circle between the files of src/ and src/core/: each layer calls only down')
  or diag("these files call each other (caller -> callee); move the functions so that calls only go down:\n"
	  . join('', @circle_diag));

# ---- the reference section of README.md --------------------------------------
my $readme = slurp_file('README.md');
my ($ref) = $readme =~ /^## Reference\n(.*?)(?=^## )/ms;
ok(defined $ref && length $ref > 1000, 'README.md has a "## Reference" section');
$ref //= '';
$ref =~ s/\\\|/|/g;    # table cells escape | as \|
my @lines = split /\n/, $ref;

# subsections (### headings; #### stays inside its ###)
my @sections = split /^(?=### )/m, $ref;

# every code span's content, and its tokens
my @spans = $ref =~ /`([^`\n]+)`/g;
my %span = map { $_ => 1 } @spans;
my %token;
for my $s (@spans)
{
	$token{$_} = 1 for grep { length } split /[\s(),\[\]]+/, $s;
}

my $node = PostgreSQL::Test::Cluster->new('reference');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION bloomsample');

sub rows
{
	my ($sql) = @_;
	return map { [ split /\t/, $_, -1 ] } grep { length } split /\n/,
	  $node->safe_psql('postgres', "\\pset fieldsep '\\t'\n$sql");
}

sub norm_type
{
	my ($t) = @_;
	$t =~ s/double precision/float8/g;
	$t =~ s/"//g;
	return $t;
}

# ---- extension members -----------------------------------------------------
# The types PostgreSQL makes implicitly, with a type (its array type) or with a
# table or view (its row type), are extension members from PostgreSQL 17 on and
# not before: left out on every major, they are documented with what made them.
my $implicit_type = q{EXISTS (
	  SELECT 1 FROM pg_type t
	  WHERE d.classid = 'pg_type'::regclass AND t.oid = d.objid
	    AND (EXISTS (SELECT 1 FROM pg_type b WHERE b.typarray = t.oid)
	         OR EXISTS (SELECT 1 FROM pg_class r WHERE r.oid = t.typrelid AND r.relkind <> 'c')))};
my $members = qq{
	SELECT i.type, coalesce(i.name, ''), i.identity, d.classid = 'pg_proc'::regclass
	FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid,
	     LATERAL pg_identify_object(d.classid, d.objid, d.objsubid) i
	WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
	  AND e.extname = 'bloomsample' AND NOT $implicit_type
	ORDER BY 1, 3};
my $nmembers = 0;
for my $r (rows($members))
{
	my ($type, $name, $identity) = @$r;
	$nmembers++;
	if ($type eq 'function' || $type eq 'aggregate')
	{
		next;    # below, with their signatures
	}
	elsif ($type eq 'operator')
	{
		my ($op) = $identity =~ /^\S+?\.([^\s(]+)\(/;
		ok(defined $op && $token{$op}, "operator $identity is in the reference");
	}
	elsif ($type eq 'cast')
	{
		# a cast is documented through its function (a member too)
		pass("cast $identity: its function is checked below");
	}
	elsif ($type =~ /^(type|operator class|operator family|access method|table|view)$/)
	{
		my $n = $name ne '' ? $name : $identity;
		$n =~ s/^.*\.//;
		$n =~ s/ USING .*//;
		ok($token{$n} || $span{$n}, "$type $n is in the reference");
	}
	else
	{
		fail("member $type $identity: unknown kind, teach 004_docs.pl about it");
	}
}
ok($nmembers > 100, "the extension has $nmembers members");

# ---- descriptions in the catalog ----------------------------------------------
# every member has a one-line COMMENT (psql's \df+, \do+, \dT+, \dAc+ show it)
my @undescribed = rows(qq{
	SELECT i.type, i.identity, coalesce(obj_description(d.objid, c.relname), '')
	FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
	JOIN pg_class c ON c.oid = d.classid,
	     LATERAL pg_identify_object(d.classid, d.objid, d.objsubid) i
	WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
	  AND e.extname = 'bloomsample' AND NOT $implicit_type
	ORDER BY 1, 2});
is(scalar(@undescribed), $nmembers, 'every member is checked for a description');
for my $r (@undescribed)
{
	my ($type, $identity, $comment) = @$r;
	ok($comment ne '' && $comment !~ /\n/, "$type $identity has a one-line description");
}

# ---- functions and aggregates ----------------------------------------------
# one row per function: name, IN argument names ('-': unnamed), IN types,
# defaults, result, OUT column names
my $funcs = q{
	SELECT p.oid, p.proname,
	       array_to_string(ARRAY(
	         SELECT coalesce(nullif(n, ''), '-') FROM unnest(coalesce(p.proargnames,
	                  array_fill(''::text, ARRAY[p.pronargs])), coalesce(p.proargmodes,
	                  array_fill('i'::"char", ARRAY[p.pronargs]))) u(n, m)
	         WHERE m IN ('i', 'b', 'v')), ';'),
	       array_to_string(ARRAY(SELECT format_type(t, NULL)
	                             FROM unnest(p.proargtypes) WITH ORDINALITY u(t, o)
	                             ORDER BY o), ';'),
	       p.pronargdefaults, coalesce(pg_get_expr(p.proargdefaults, 0), ''),
	       pg_get_function_result(p.oid),
	       array_to_string(ARRAY(
	         SELECT n FROM unnest(p.proargnames, p.proargmodes) u(n, m)
	         WHERE m IN ('o', 't', 'b')), ';')
	FROM pg_proc p
	JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
	JOIN pg_extension e ON e.oid = d.refobjid
	WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
	  AND e.extname = 'bloomsample'
	ORDER BY p.oid};
my (%groups, @order, %catalog_funcs);
for my $r (rows($funcs))
{
	my ($oid, $name, $innames, $intypes, $ndef, $defs, $result, $outnames) = @$r;
	$catalog_funcs{$name} = 1;
	my @names = $innames eq '' ? () : split /;/, $innames, -1;
	my @types = $intypes eq '' ? () : split /;/, $intypes, -1;
	my $key = join ',', $name, scalar(@types), @names;
	if (!$groups{$key})
	{
		push @order, $key;
		my @d = $defs eq '' ? () : split /, /, $defs;
		s/::[a-z ]+(\[\])?$// for @d;
		$groups{$key} = {
			name => $name, names => \@names, types => [ map { [] } @types ],
			defaults => [ (undef) x (@types - @d), @d ],
			result => norm_type($result), out => [ split /;/, $outnames ] };
	}
	my $g = $groups{$key};
	for my $i (0 .. $#types)
	{
		my $t = norm_type($types[$i]);
		push @{ $g->{types}[$i] }, $t unless grep { $_ eq $t } @{ $g->{types}[$i] };
	}
}

for my $key (@order)
{
	my $g = $groups{$key};
	my $name = $g->{name};
	ok($ref =~ /(?<![\w.])\Q$name\E\(/, "function $name( is in the reference");
	# exact signatures: user-facing functions whose arguments all have names
	next if $name =~ /^_/ || grep { $_ eq '-' } @{ $g->{names} };
	my @args;
	for my $i (0 .. $#{ $g->{names} })
	{
		my $a = $g->{names}[$i] . ' ' . join(' | ', @{ $g->{types}[$i] });
		$a .= " DEFAULT $g->{defaults}[$i]" if defined $g->{defaults}[$i];
		push @args, $a;
	}
	my $sig = "$name(" . join(', ', @args) . ')';
	my @at = grep { index($_, $sig) >= 0 } @lines;
	ok(@at, "signature $sig is in the reference");
	next unless @at;
	if ($g->{result} eq 'record' && @{ $g->{out} })
	{
		my ($sec) = grep { index($_, $sig) >= 0 } @sections;
		for my $col (@{ $g->{out} })
		{
			ok($sec =~ /`\Q$col\E`/, "column $col of $name is in its subsection");
		}
	}
	else
	{
		ok((grep { index($_, "→ `$g->{result}`") >= 0 } @at),
			"$sig is followed by → `$g->{result}`");
	}
}
ok(scalar(@order) > 50, scalar(@order) . ' function signatures');

# ---- settings ----------------------------------------------------------------
my @settings = rows(q{
	LOAD 'bloomsample';
	SELECT name, current_setting(name), coalesce(array_to_string(enumvals, ';'), '')
	FROM pg_settings WHERE name LIKE 'bloomsample.%' ORDER BY name});
ok(@settings >= 1, scalar(@settings) . ' settings');
my %catalog_settings;
for my $s (@settings)
{
	my ($name, $default, $enums) = @$s;
	$catalog_settings{$name} = 1;
	my @at = grep { /`\Q$name\E`/ && /`\Q$default\E`/ } @lines;
	ok(@at, "setting $name is in the reference with its default $default");
	for my $v (split /;/, $enums)
	{
		ok((grep { /`\Q$v\E`/ } @at), "setting $name: value $v is described");
	}
}

# ---- reloptions, from the sources, validated by the server -------------------
my %relopts;    # name => relopt kind variable
for my $f (glob 'src/*.c')
{
	my $src = slurp_file($f);
	while ($src =~ /add_(?:int|bool|real|enum|string)_reloption\s*\(\s*(\w+)\s*,\s*"(\w+)"/g)
	{
		$relopts{$2} = $1;
	}
}
ok(%relopts, 'reloptions found in src/*.c: ' . join(', ', sort keys %relopts));
$node->safe_psql('postgres', 'CREATE TABLE reloptions_t (f bloomfilter)');
for my $opt (sort keys %relopts)
{
	my @at = grep { /^\|\s*`\Q$opt\E`\s*\|\s*`([^`]+)`/ } @lines;
	ok(@at, "reloption $opt has a row with its default");
	next unless @at;
	my ($default) = $at[0] =~ /^\|\s*`\Q$opt\E`\s*\|\s*`([^`]+)`/;
	if ($relopts{$opt} eq 'bloofi_relopt_kind')
	{
		my ($rc, $out, $err) = $node->psql('postgres',
			"CREATE INDEX ON reloptions_t USING bloofi (f) WITH ($opt = $default)");
		is($rc, 0, "bloofi accepts $opt = $default") or diag($err);
	}
	else
	{
		fail("reloption $opt of $relopts{$opt}: teach 004_docs.pl its access method");
	}
}
my ($rc, $out, $err) = $node->psql('postgres',
	'CREATE INDEX ON reloptions_t USING bloofi (f) WITH (no_such_option = 1)');
isnt($rc, 0, 'an unknown reloption is refused (the checks above can fail)');

# ---- the reverse: nothing in the reference that the catalog lacks ------------
my %mentioned = map { $_ => 1 } $ref =~ /(?<![\w.])(_?(?:bloom|bst|bloofi)\w*)\(/g;
for my $f (sort keys %mentioned)
{
	ok($catalog_funcs{$f}, "$f( in the reference is a function of the extension");
}
my %mentioned_settings = map { $_ => 1 } $ref =~ /\b(bloomsample\.\w+)/g;
for my $s (sort keys %mentioned_settings)
{
	ok($catalog_settings{$s}, "$s in the reference is a setting of the extension");
}

$node->stop;
done_testing();
