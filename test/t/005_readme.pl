# test/t/005_readme.pl
#   README.md's "Getting started" runs as written.
#
#   Every ```sql block that follows a `<!-- getting-started -->` line of
#   README.md is a piece of one script, meant to be pasted into psql in a fresh
#   database top to bottom.  This test extracts those blocks in order and runs
#   every statement in one psql session on a fresh database of a fresh cluster
#   (unaligned output, fields separated by ' | ', as the README says).  A
#   statement followed by `--> ` lines must print exactly those lines (an
#   `--> ERROR:  ...` line: fail with that message); a statement with none must
#   succeed.  So the README neither uses a table it never creates nor shows an
#   output the extension does not print.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $readme = slurp_file('README.md');
utf8::decode($readme);

# ---- the blocks, then their statements and shown outputs ----------------------
my @blocks = $readme =~ /^<!-- getting-started -->\n+```sql\n(.*?)^```$/gms;
ok(@blocks >= 4, scalar(@blocks) . ' getting-started blocks');
my ($gs) = $readme =~ /^## Getting started\n(.*?)(?=^## )/ms;
my $sql_blocks = () = ($gs // '') =~ /^```sql$/gm;
my $marked = () = ($gs // '') =~ /^<!-- getting-started -->\n+```sql$/gm;
ok($marked > 0 && $marked == $sql_blocks,
	"every sql block of \"Getting started\" is marked <!-- getting-started --> ($marked of $sql_blocks)");

# code part of a line: without a trailing -- comment (outside quotes)
sub code_of
{
	my ($line) = @_;
	my $quotes = 0;
	for my $i (0 .. length($line) - 2)
	{
		my $c = substr($line, $i, 1);
		$quotes++ if $c eq "'";
		return substr($line, 0, $i) if $c eq '-' && substr($line, $i + 1, 1) eq '-' && $quotes % 2 == 0;
	}
	return $line;
}

my @stmts;    # { sql => ..., expect => [lines] or undef, block => n }
for my $b (0 .. $#blocks)
{
	my $cur;
	for my $line (split /\n/, $blocks[$b])
	{
		if ($line =~ /^--> ?(.*)$/)
		{
			ok(@stmts && !$cur, "block $b: '-->' line follows a complete statement: $line");
			push @{ $stmts[-1]{expect} }, $1 =~ s/\s+$//r if @stmts;
			next;
		}
		next if !$cur && ($line =~ /^\s*(--.*)?$/);
		$cur .= "$line\n";
		if (code_of($line) =~ /;\s*$/)
		{
			push @stmts, { sql => $cur, block => $b };
			$cur = undef;
		}
	}
	ok(!defined $cur, "block $b ends with a complete statement");
}
ok(@stmts >= 30, scalar(@stmts) . ' statements');
my $shown = grep { $_->{expect} } @stmts;
ok($shown >= 20, "$shown statements show their output");

# ---- run them in one session ---------------------------------------------------
my $node = PostgreSQL::Test::Cluster->new('readme');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE fresh');

my $script = "\\pset fieldsep ' | '\n\\pset tuples_only on\n\\pset format unaligned\n";
for my $i (0 .. $#stmts)
{
	$script .= "\\echo '\@\@stmt $i'\n$stmts[$i]{sql}"
	  . "\\if :ERROR\n\\echo '\@\@error' :LAST_ERROR_MESSAGE\n\\endif\n";
}
$script .= "\\echo '\@\@end'\n";
my ($stdout, $stderr);
$node->psql('fresh', $script, stdout => \$stdout, stderr => \$stderr,
	on_error_stop => 0);
utf8::decode($stdout);
like($stdout, qr/^\@\@end$/m, 'the whole script ran');

my %out;
my $at;
for my $line (split /\n/, $stdout)
{
	if ($line =~ /^\@\@stmt (\d+)$/) { $at = $1; $out{$at} = []; next; }
	last if $line eq '@@end';
	push @{ $out{$at} }, $line =~ s/\s+$//r if defined $at;
}

for my $i (0 .. $#stmts)
{
	my $s = $stmts[$i];
	(my $first = $s->{sql}) =~ s/\s+/ /g;
	$first = substr($first, 0, 70);
	my @got = @{ $out{$i} // [] };
	my ($err) = map { /^\@\@error (.*)$/ ? $1 : () } @got;
	@got = grep { !/^\@\@error / } @got;
	my @want = @{ $s->{expect} // [] };
	if (@want && $want[0] =~ /^ERROR:\s+(.*)$/)
	{
		is($err, $1, "block $s->{block}: $first fails as shown");
		next;
	}
	ok(!defined $err, "block $s->{block}: $first succeeds") or diag($err);
	next unless $s->{expect};
	is(join("\n", @got), join("\n", @want), "block $s->{block}: $first prints what README shows");
}

$node->stop;
done_testing();
