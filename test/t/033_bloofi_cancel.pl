# test/t/033_bloofi_cancel.pl
#   Writes cancelled at random moments leave a bloofi index valid (issue
#   14): an UPDATE whose index inserts (splits, pending-list flushes) are
#   cut by statement_timeout, or by pg_cancel_backend from a second
#   session, is followed by bloofi_check (every invariant against the table,
#   every page accounted for) after every step, and at the end lookups
#   through the index equal a sequential scan, before and after VACUUM.
#   Tables: the issue's reproducer (300 rows, m = 100,992, k = 7: too wide
#   for the pending list, so every insert writes the tree) at order 2 and
#   32, and small filters (m = 2,048) where fastupdate = on sends inserts to
#   the pending list and the cancels land in its flushes.  The loops are
#   short for CI; test/bench/bloofi_reliability.sh runs the reproducer for 500
#   iterations.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloofiOracle;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('bloofi_cancel');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\nshared_buffers = 64MB");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION bloomsample;
	-- the issue's table: row i holds 100 i .. 100 i + 99
	CREATE FUNCTION mkbig(i int) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS
	  $$ SELECT bloom_from_array(ARRAY(SELECT 100 * i + j FROM generate_series(0, 99) j)::bigint[], 100992, 7) $$;
	-- small filters: row i holds 10 i .. 10 i + 9
	CREATE FUNCTION mksmall(i int) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS
	  $$ SELECT bloom_from_array(ARRAY(SELECT 10 * i + j FROM generate_series(0, 9) j)::bigint[], 2048, 5) $$;
});

# a session for the writes, one for checks and cancels
my $w = $node->background_psql('postgres', on_error_stop => 0);
my $c = $node->background_psql('postgres', on_error_stop => 0);
# (each query gets the default timeout, not the session as a whole)
$w->set_query_timer_restart;
$c->set_query_timer_restart;
my $wpid = $w->query_safe('SELECT pg_backend_pid()');

# run $sql in session $s; returns its error text ('' when it succeeded)
sub run
{
	my ($s, $sql) = @_;
	$s->{stderr} = '';
	$s->query($sql);
	my $err = $s->{stderr};
	$s->{stderr} = '';
	return $err;
}

# index results equal sequential-scan results for every probe
sub same_as_seqscan
{
	my ($t, $maxx, $what) = @_;
	index_matches_seqscan($node, $t,
		"SELECT generate_series(0, $maxx, 97) AS x", 20, $what);
	return;
}

# one variant: table $t (rows from $mk), index options, $iters cancelled
# UPDATEs of a fifth of the rows, cancelled by statement_timeout or by
# pg_cancel_backend ($how), bloofi_check after each
sub variant
{
	my (%v) = @_;
	my ($t, $iters, $how) = ($v{table}, $v{iters}, $v{how});
	# the elements the rows hold: 0 .. $span - 1 (the probes cover them)
	my $span = ($v{mk} eq 'mkbig' ? 100 : 10) * $v{rows};
	my $what = "$t (order $v{order}, fastupdate $v{fastupdate}, $how)";

	$node->safe_psql('postgres', qq{
		DROP TABLE IF EXISTS $t;
		CREATE TABLE $t (id int PRIMARY KEY, f bloomfilter) WITH (autovacuum_enabled = off);
		INSERT INTO $t SELECT i, $v{mk}(i) FROM generate_series(0, $v{rows} - 1) i;
		CREATE INDEX ${t}_f ON $t USING bloofi (f) WITH (order = $v{order}, fastupdate = $v{fastupdate});
	});
	my ($cancelled, $bad, $first) = (0, 0, '');
	for my $i (1 .. $iters)
	{
		my $tmo = 5 + int(rand(81));
		my $r = int(rand(5));
		my $x = int(rand(2**40));
		my $upd = "UPDATE $t SET f = bloom_add(f, ${x}::bigint) WHERE id % 5 = $r";
		my $err;
		if ($how eq 'statement_timeout')
		{
			$err = run($w, "SET statement_timeout = '${tmo}ms'; $upd; RESET statement_timeout");
		}
		else
		{
			$w->{stderr} = '';
			$w->{stdin} .= "$upd;\n\\echo 'done $i'\n";
			$w->{run}->pump_nb;
			usleep(1000 * $tmo);
			run($c, "SELECT pg_cancel_backend($wpid)");
			$w->query_until(qr/done $i\r?\n/, '');
			$err = $w->{stderr};
		}
		$cancelled++ if $err =~ /canceling statement/;
		my $chk = run($c, "SELECT bloofi_check('${t}_f')");
		if ($chk ne '')
		{
			$bad++;
			$first = "iteration $i: $chk" if $first eq '';
		}
	}
	is($bad, 0, "$what: bloofi_check clean after each of $iters steps") or diag($first);
	cmp_ok($cancelled, '>=', $iters / 4, "$what: writes were cancelled ($cancelled of $iters)");
	same_as_seqscan($t, $span, "$what, after the cancels");
	# VACUUM completes what was left (dead leaves, slack, intents) and stays valid
	$node->safe_psql('postgres', "VACUUM $t");
	is(run($c, "SELECT bloofi_check('${t}_f')"), '', "$what: bloofi_check clean after VACUUM");
	is($node->safe_psql('postgres', "SELECT retired_nodes FROM bloofi_stats('${t}_f')"), '0',
		"$what: VACUUM freed every retired node");
	same_as_seqscan($t, $span, "$what, after VACUUM");
}

variant(table => 'st2', mk => 'mkbig', rows => 300, order => 2, fastupdate => 'off',
	iters => 60, how => 'statement_timeout');
variant(table => 'st32', mk => 'mkbig', rows => 300, order => 32, fastupdate => 'on',
	iters => 60, how => 'statement_timeout');
variant(table => 'sm2', mk => 'mksmall', rows => 4000, order => 2, fastupdate => 'on',
	iters => 100, how => 'statement_timeout');
variant(table => 'sm32', mk => 'mksmall', rows => 4000, order => 32, fastupdate => 'off',
	iters => 60, how => 'statement_timeout');
variant(table => 'stc', mk => 'mkbig', rows => 300, order => 2, fastupdate => 'off',
	iters => 60, how => 'pg_cancel_backend');
variant(table => 'smc', mk => 'mksmall', rows => 4000, order => 32, fastupdate => 'on',
	iters => 40, how => 'pg_cancel_backend');

$w->quit;
$c->quit;
$node->stop;
done_testing();
