# test/t/012_untyped_params.pl
#   Element typing through real clients (issue 32): a libpq program
#   (untyped_client.c, compiled here) sends the element as an extended-protocol
#   parameter whose type the server infers (paramTypes NULL, with PQexecParams
#   and with PQprepare), and as a text and a varchar parameter (what JDBC's
#   setString sends); pgbench -M prepared sends a \set variable as an untyped
#   parameter of a prepared statement.  Over filters of integers and of
#   strings, for @>, <@, bloom_contains, bloom_contained (sequential scan and
#   Bloofi index scan) and bloom_add, every answer must equal the typed
#   query's (the bigint overload when the server reads the probe as a bigint,
#   else the bytea overload of its bytes).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use IPC::Run;

# libpq's header: pg_config's include directory, else the system's (a
# relocated copy of the server's binaries may have no headers)
my ($include) = grep { -e "$_/libpq-fe.h" }
  (scalar(`pg_config --includedir`) =~ s/\s+$//r, '/usr/include/postgresql');
plan skip_all => 'libpq-fe.h not found' unless defined $include;
my $client = PostgreSQL::Test::Utils::tempdir() . '/untyped_client';
my ($out, $err) = ('', '');
if (!IPC::Run::run(['cc', '-O1', '-o', $client, "$FindBin::RealBin/untyped_client.c",
					"-I$include", '-lpq'], '>', \$out, '2>', \$err))
{
	plan skip_all => "cannot compile a libpq client: $err";
}

my $node = PostgreSQL::Test::Cluster->new('untyped');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION bloomsample;
	CREATE TABLE elems AS SELECT g AS id, (g * 37 + i * 101) % 400 AS x
	    FROM generate_series(1, 60) g, generate_series(1, 25) i;
	CREATE TABLE t_int AS SELECT id, bloom_agg(x::bigint, 2048, 3) AS f FROM elems GROUP BY id;
	CREATE TABLE t_txt AS SELECT id, bloom_agg(x::text, 2048, 3) AS f FROM elems GROUP BY id;
	CREATE INDEX ON t_int USING bloofi (f);
	CREATE INDEX ON t_txt USING bloofi (f);
	CREATE FUNCTION as_int(p text) RETURNS bigint LANGUAGE plpgsql AS
	$$BEGIN RETURN p::bigint; EXCEPTION WHEN others THEN RETURN NULL; END$$;
});

my @probes = ('138', '175', '4242', ' 138 ', '+175', '9223372036854775808', '138.0', 'abc');
my $conninfo = $node->connstr('postgres');

# the typed form of $call (a template, X the element) for probe $p in table
# $tbl: the bigint when the server reads the probe as one in the table of
# integers, else the probe's bytes as bytea (the same hash as the string)
sub typed
{
	my ($tbl, $p, $call) = @_;
	my $lit = $p;
	$lit =~ s/'/''/g;
	my ($int, $str) = ($call, $call);
	$int =~ s/X/as_int('$lit')/;
	$str =~ s/X/convert_to('$lit', 'UTF8')/;
	return $tbl eq 't_int'
	  ? "CASE WHEN as_int('$lit') IS NOT NULL THEN $int ELSE $str END"
	  : $str;
}

# the typed answer: ids whose filter holds the probe read as the table's type
sub oracle
{
	my ($tbl, $p) = @_;
	my $cond = typed($tbl, $p, 'f @> X');
	return $node->safe_psql('postgres', "SELECT id FROM $tbl WHERE $cond ORDER BY id");
}

sub client
{
	my ($options, $mode, $sql, @params) = @_;
	my ($o, $e) = ('', '');
	IPC::Run::run([ $client, "$conninfo options='$options'", $mode, $sql, @params ],
		'>', \$o, '2>', \$e);
	chomp $o;
	return $o;
}

my %forms = (
	'f @> $1'               => 'f @> $1',
	'$1 <@ f'               => '$1 <@ f',
	'bloom_contains(f, $1)' => 'bloom_contains(f, $1)',
	'bloom_contained($1, f)' => 'bloom_contained($1, f)');
my $members = 0;
for my $tbl ('t_int', 't_txt')
{
	for my $p (@probes)
	{
		my $want = oracle($tbl, $p);
		$members += scalar(split /\n/, $want);
		for my $form (sort keys %forms)
		{
			for my $mode ('exec', 'prepare', 'text', 'varchar')
			{
				for my $scan ('-c enable_bitmapscan=off', '-c enable_seqscan=off')
				{
					my $got = client($scan, $mode,
						"SELECT id FROM $tbl WHERE $forms{$form} ORDER BY id", $p);
					is($got, $want, "$tbl, $form, $mode parameter '$p', $scan");
				}
			}
		}
		# bloom_add through the parameter adds what the typed bloom_add adds
		my $typed = typed($tbl, $p, 'bloom_add(f, X)');
		for my $mode ('exec', 'prepare', 'text', 'varchar')
		{
			is(client('', $mode,
				"SELECT count(*) FROM $tbl WHERE (bloom_add(f, \$1) = $typed) IS NOT TRUE", $p),
				'0', "$tbl, bloom_add, $mode parameter '$p'");
		}
	}
}
# the oracle is not trivial
cmp_ok($members, '>=', 20, 'the probes hit rows');

# pgbench -M prepared: a \set variable is an untyped parameter
my $want138 = scalar(split /\n/, oracle('t_int', '138'));
cmp_ok($want138, '>', 0, 'rows hold 138');
$node->pgbench(
	'-n -M prepared -t 3',
	0,
	[qr{processed: 3/3}],
	[qr{^$}],
	'pgbench -M prepared with an untyped \set parameter',
	{
		'untyped_param' => qq{
\\set x 138
\\set want $want138
SELECT (count(*) = :want)::int AS ok FROM t_int WHERE f @> :x \\gset
SELECT 1 / :ok;
SELECT (count(*) = :want)::int AS ok FROM t_int WHERE :x <@ f \\gset
SELECT 1 / :ok;
},
	});

$node->stop;
done_testing();
