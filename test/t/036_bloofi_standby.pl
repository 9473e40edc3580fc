# test/t/036_bloofi_standby.pl
#   Bloofi lookups on a hot standby without hot_standby_feedback never miss
#   a row (issue 26): a node retired on the primary is freed by VACUUM once
#   the primary's snapshots are newer, but a standby query may still be
#   reading it; VACUUM WAL-logs a recovery conflict before freeing it, on
#   which the standby cancels the queries old enough to have read the node's
#   old parent (SQLSTATE 40001), as it does for btree's recycled pages.
#
#   1. The mechanism, step by step: a standby query whose snapshot predates
#      a node's retirement (and no heap change conflicts with it) is
#      cancelled when VACUUM frees the node; a transaction whose snapshot
#      came after the retirement is not.
#   2. Churn: the primary deletes, VACUUMs (merges retire nodes), takes an
#      XID, VACUUMs again (frees them) and inserts (reuses their pages),
#      while the standby's replay is paused and resumed, so that it replays
#      each cycle in one burst under two readers that run lookups in a loop.
#      Each check is one REPEATABLE READ snapshot: a join of probe elements
#      (two held by every row, so that their descents read the whole tree)
#      with the table by a sequential scan, then the same join through the
#      index five times (five descents per element, each from the root); every
#      index answer must equal the sequential scan's, or the check be
#      cancelled by a recovery conflict (40001).  Bounded to ~25 s.
#   On the primary a session holds a lock on the table throughout (as a
#   busy index always has one), so that VACUUM never gets the index's
#   AccessExclusiveLock, whose WAL-logged lock would also keep standby
#   queries out: only the snapshot conflict protects them here.
use strict;
use warnings;
use POSIX ();
use Time::HiRes qw(time usleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('bloofi_sb_primary');
$primary->init(allows_streaming => 1);
# (jit off: enable_seqscan = off makes plans costly enough for JIT compiles
# that would take most of each lookup's time)
$primary->append_conf('postgresql.conf', "autovacuum = off\nshared_buffers = 64MB\njit = off");
$primary->start;
$primary->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('bloofi_sb_standby');
$standby->init_from_backup($primary, 'bk', has_streaming => 1);
$standby->append_conf('postgresql.conf', qq{
hot_standby_feedback = off
max_standby_streaming_delay = 1s
shared_buffers = 64MB
});
$standby->start;

sub prim { return $primary->safe_psql('postgres', $_[0]); }
sub stby { return $standby->safe_psql('postgres', $_[0]); }

prim(q{
	CREATE EXTENSION bloomsample;
	-- row (id, salt) holds 0 and 1 (every row: lookups of them read the
	-- whole tree) and 10 (id + 100000 salt) .. + 9
	CREATE FUNCTION mk(id int, salt int) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS
	  $$ SELECT bloom_from_array(ARRAY[0, 1]::bigint[] ||
	       ARRAY(SELECT 10 * (id + 100000 * salt::bigint) + j FROM generate_series(0, 9) j),
	       1536, 4) $$;
	-- in one snapshot, the lookups of every probe element by a sequential
	-- scan, then through the index `reps` times (each a new descent from
	-- the root, all of which must find the same rows): 'ok <rows>' or
	-- 'MISMATCH ...'
	CREATE FUNCTION standby_check(reps int) RETURNS text LANGUAGE plpgsql AS $f$
	DECLARE
		by_index text;
		by_seqscan text;
	BEGIN
		IF current_setting('transaction_isolation') <> 'repeatable read' THEN
			RAISE EXCEPTION 'standby_check needs REPEATABLE READ';
		END IF;
		PERFORM set_config('enable_bitmapscan', 'off', true);
		PERFORM set_config('enable_indexscan', 'off', true);
		EXECUTE $q$SELECT count(*) || ' ' || md5(coalesce(string_agg(p.x || ':' || t.id, ','
		             ORDER BY p.x, t.id), '')) FROM probe p JOIN t ON bloom_contains(t.f, p.x)$q$
		  INTO by_seqscan;
		PERFORM set_config('enable_seqscan', 'off', true);
		PERFORM set_config('enable_bitmapscan', 'on', true);
		FOR i IN 1 .. reps LOOP
			EXECUTE $q$SELECT count(*) || ' ' || md5(coalesce(string_agg(p.x || ':' || t.id, ','
			             ORDER BY p.x, t.id), '')) FROM probe p JOIN t ON t.f @> p.x$q$ INTO by_index;
			IF by_index <> by_seqscan THEN
				-- which pairs differ (same snapshot): a lead for the diagnosis
				RETURN 'MISMATCH index ' || by_index || ' seqscan ' || by_seqscan
				  || ' at replay LSN ' || pg_last_wal_replay_lsn() || '; missed: ' || (
					SELECT coalesce(string_agg(d, ',' ORDER BY d), '') FROM (
					  (SELECT p.x || ':' || t.id || '@' || t.ctid FROM probe p JOIN t ON bloom_contains(t.f, p.x)
					   EXCEPT SELECT p.x || ':' || t.id || '@' || t.ctid FROM probe p JOIN t ON t.f @> p.x)
					  LIMIT 40) m(d))
				  || '; added: ' || (
					SELECT coalesce(string_agg(d, ',' ORDER BY d), '') FROM (
					  (SELECT p.x || ':' || t.id || '@' || t.ctid FROM probe p JOIN t ON t.f @> p.x
					   EXCEPT SELECT p.x || ':' || t.id || '@' || t.ctid FROM probe p JOIN t ON bloom_contains(t.f, p.x))
					  LIMIT 40) a(d));
			END IF;
		END LOOP;
		RETURN 'ok ' || split_part(by_index, ' ', 1);
	END $f$;
});

# a primary session holding a lock on the table (not a snapshot: READ
# COMMITTED, idle in its transaction) keeps VACUUM from the index's
# AccessExclusiveLock
sub hold_lock
{
	my $l = $primary->background_psql('postgres');
	$l->set_query_timer_restart;
	$l->query_safe('BEGIN; SELECT count(*) FROM t');
	is(prim(q{SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction'
	       AND backend_xmin IS NOT NULL}), '0', 'the lock holder holds no snapshot');
	return $l;
}

sub conflicts
{
	return stby(q{SELECT confl_snapshot FROM pg_stat_database_conflicts WHERE datname = 'postgres'});
}

# ---- 1. the mechanism ---------------------------------------------------------

prim(q{
	CREATE TABLE t (id int PRIMARY KEY, f bloomfilter) WITH (autovacuum_enabled = off);
	INSERT INTO t SELECT i, mk(i, 0) FROM generate_series(1, 600) i;
	CREATE INDEX t_f ON t USING bloofi (f) WITH (order = 2, fastupdate = on);
	CREATE TABLE probe AS SELECT x::bigint FROM generate_series(0, 7000, 7) x;
	VACUUM t; SELECT txid_current(); VACUUM t;
});
my $lock = hold_lock();
# new rows wait in the pending list (fewer than a flush's 256)
prim(q{INSERT INTO t SELECT i, mk(i, 0) FROM generate_series(601, 850) i});
$primary->wait_for_catchup($standby);
is(prim(q{SELECT retired_nodes FROM bloofi_stats('t_f')}), '0', 'no retired node yet');

# old: a standby transaction whose snapshot predates the retirements below
my $old = $standby->background_psql('postgres', on_error_stop => 0);
$old->set_query_timer_restart;
$old->query_safe('\set VERBOSITY verbose');
$old->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM t');
my $conflicts0 = conflicts();

# VACUUM moves the pending rows into the tree: splits retire nodes (the
# heap's pages become all-visible at XIDs older than the old snapshot, no
# conflict), not freed yet (no XID was taken after they were retired)
prim('VACUUM t');
cmp_ok(prim(q{SELECT retired_nodes FROM bloofi_stats('t_f')}), '>', 0, 'the flush retired nodes');
$primary->wait_for_catchup($standby);
is($old->query_safe('SELECT count(*) FROM t'), '850', 'the old transaction survived the flush');

# new: a standby transaction whose snapshot comes after the retirements
prim('SELECT txid_current()');
$primary->wait_for_catchup($standby);
my $new = $standby->background_psql('postgres', on_error_stop => 0);
$new->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM t');

# the old transaction is busy in a statement; VACUUM frees the retired nodes
$old->{stderr} = '';
$old->{stdin} .= "SELECT pg_sleep(15);\n\\echo 'sleep done'\n";
$old->{run}->pump_nb;
usleep(200_000);
prim('VACUUM t');
is(prim(q{SELECT retired_nodes FROM bloofi_stats('t_f')}), '0', 'VACUUM freed the retired nodes');
$primary->wait_for_catchup($standby);
$old->query_until(qr/sleep done\r?\n/, '');
like($old->{stderr}, qr/40001: canceling statement due to conflict with recovery/,
	'the standby query older than the retirements was cancelled (40001)');
is($new->query_safe('SELECT count(*) FROM t; COMMIT'), '850',
	'the standby transaction newer than the retirements was not cancelled');
$old->quit;		# (a backend reports its conflicts to the statistics when its transaction ends)
$new->quit;
my $counted = 0;
for (1 .. 100)
{
	last if ($counted = conflicts() > $conflicts0);
	usleep(100_000);
}
ok($counted, 'pg_stat_database_conflicts counts a snapshot conflict');

# the freed pages are reused, and the standby's lookups stay exact
prim(q{INSERT INTO t SELECT i, mk(i, 0) FROM generate_series(851, 1100) i});
$primary->wait_for_catchup($standby);
like(stby(q{SET default_transaction_isolation = 'repeatable read'; SELECT standby_check(1)}),
	qr/^ok [1-9]/, 'standby lookups equal its sequential scan after the reuse');
$lock->quit;

# ---- 2. churn -------------------------------------------------------------------

my $rows = 4000;
prim(qq{
	DROP TABLE t;
	CREATE TABLE t (id int PRIMARY KEY, f bloomfilter) WITH (autovacuum_enabled = off);
	INSERT INTO t SELECT i, mk(i, 0) FROM generate_series(1, $rows) i;
	CREATE INDEX t_f ON t USING bloofi (f) WITH (order = 4, fastupdate = off);
	TRUNCATE probe;
	INSERT INTO probe VALUES (0), (1);
	INSERT INTO probe SELECT 10 * i + 3 FROM generate_series(1, $rows, 499) i;
	VACUUM t;
});
$primary->wait_for_catchup($standby);
like(stby(q{SET enable_seqscan = off; SET enable_indexscan = off;
	EXPLAIN (COSTS OFF) SELECT * FROM probe p JOIN t ON t.f @> p.x}),
	qr/Bitmap Index Scan on t_f/, 'the standby lookups use the index');
$lock = hold_lock();

# (BLOOFI_STANDBY_SECONDS and BLOOFI_STANDBY_READERS: a longer churn by hand)
my $seconds = $ENV{BLOOFI_STANDBY_SECONDS} // 25;
my $nreaders = $ENV{BLOOFI_STANDBY_READERS} // 2;
my $until = time() + $seconds;
my $tally_dir = PostgreSQL::Test::Utils::tempdir();

# a reader: lookups checked in a loop until $until, tallies into a file
# (a forked child: it leaves the test's END blocks to the parent)
sub reader
{
	my ($n) = @_;
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	return $pid if $pid;
	my %tally = (ok => 0, conflict => 0, mismatch => 0, other => 0);
	my $first = '';
	while (time() < $until)
	{
		my ($out, $err) = ('', '');
		eval {
			$standby->psql('postgres',
				"\\set VERBOSITY verbose\nSET default_transaction_isolation = 'repeatable read';\n"
				  . "SELECT standby_check(5);",
				stdout => \$out, stderr => \$err, on_error_stop => 0);
			1;
		} or $err .= "psql failed: $@";
		if ($out =~ /^ok \d+/ && $err eq '') { $tally{ok}++; }
		elsif ($out =~ /MISMATCH/)
		{
			$tally{mismatch}++;
			$first ||= $out;
		}
		# (40001; psql shows no SQLSTATE for a FATAL between statements)
		elsif ($err =~ /(canceling statement|terminating connection) due to conflict with recovery/)
		{
			$tally{conflict}++;
		}
		else
		{
			$tally{other}++;
			$first ||= "$out $err";
		}
	}
	open my $fh, '>', "$tally_dir/reader$n" or POSIX::_exit(1);
	$first =~ s/\n/ /g;
	print $fh join(' ', map { "$_=$tally{$_}" } sort keys %tally), "\n$first\n";
	close $fh;
	POSIX::_exit(0);
}
my @readers = map { reader($_) } (1 .. $nreaders);

# pause or resume the standby's replay (the call itself may be cancelled
# by a recovery conflict: it is repeated until the state is reached)
sub replay
{
	my ($what) = @_;
	my $want = $what eq 'pause' ? qr/^(pause requested|paused)$/m : qr/^not paused$/m;
	for (1 .. 100)
	{
		my $out = '';
		$standby->psql('postgres',
			"SELECT pg_wal_replay_$what();\nSELECT pg_get_wal_replay_pause_state();",
			stdout => \$out, on_error_stop => 0);
		return if $out =~ $want;
		usleep(10_000);
	}
	die "could not $what the standby's replay";
}

# the primary's cycles, each replayed by the standby in one burst
my ($cycles, $salt) = (0, 0);
while (time() < $until - 3)
{
	$cycles++;
	$salt++;
	my $r = $cycles % 7;
	replay('pause');
	prim(qq{
		DELETE FROM t WHERE id % 7 = $r AND id % 3 <> $cycles % 3;
		VACUUM t;
		SELECT txid_current();
		VACUUM t;
		INSERT INTO t SELECT i, mk(i, $salt) FROM generate_series(1, $rows) i
		  WHERE i % 7 = $r AND i % 3 <> $cycles % 3;
	});
	replay('resume');
	usleep(300_000);
}
waitpid($_, 0) for @readers;
$lock->quit;

my %total = (ok => 0, conflict => 0, mismatch => 0, other => 0);
my $first = '';
for my $n (1 .. $nreaders)
{
	open my $fh, '<', "$tally_dir/reader$n" or die "reader $n left no tally";
	my ($counts, $msg) = (scalar(<$fh>), scalar(<$fh>) // '');
	close $fh;
	chomp $msg;
	$first ||= $msg;
	$total{$1} += $2 while $counts =~ /(\w+)=(\d+)/g;
}
note "churn: $cycles primary cycles; standby checks: $total{ok} equal, "
  . "$total{conflict} cancelled by recovery conflicts, $total{mismatch} mismatches, "
  . "$total{other} other errors";
cmp_ok($cycles, '>=', 5, "the primary ran $cycles churn cycles");
cmp_ok($total{ok}, '>=', 20, "standby lookups completed ($total{ok})");
is($total{mismatch}, 0, 'no standby lookup missed or added a row') or diag($first);
is($total{other}, 0, 'no other error') or diag($first);

$primary->wait_for_catchup($standby);
like(stby(q{SET default_transaction_isolation = 'repeatable read'; SELECT standby_check(1)}),
	qr/^ok [1-9]/, 'after the churn: standby lookups equal its sequential scan');
is(prim(q{SELECT bloofi_check('t_f')}), '', 'bloofi_check on the primary');

$standby->stop;
$primary->stop;
done_testing();
