# test/t/034_bloofi_churn.pl
#   UPDATE churn keeps a bloofi index compact (issue 14): 10 rounds of
#   updating every row, VACUUM between rounds, and the index stays within
#   1.5 times the size of a fresh build (REINDEX) of the same table, lookups
#   equal a sequential scan and bloofi_check is clean after every round.
#   VACUUM's work is asserted through block counters, not time: the index
#   blocks it reads stay proportional to the index (not to the garbage the
#   rounds accumulated) and flat from round to round.  Then the space
#   lifecycle when VACUUM cannot take the index's lock (a reader holds it):
#   retired nodes wait for older snapshots, are freed once those are gone,
#   and new nodes of the next round reuse the free pages.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloofiOracle;

my $node = bloofi_node('bloofi_churn', "autovacuum = off\nshared_buffers = 64MB");
$node->safe_psql('postgres', q{
	CREATE FUNCTION mkbig(i int) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS
	  $$ SELECT bloom_from_array(ARRAY(SELECT 100 * i + j FROM generate_series(0, 99) j)::bigint[], 100992, 7) $$;
	CREATE FUNCTION mksmall(i int) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS
	  $$ SELECT bloom_from_array(ARRAY(SELECT 10 * i + j FROM generate_series(0, 9) j)::bigint[], 4096, 5) $$;
});

sub sql { return $node->safe_psql('postgres', $_[0]); }

# index blocks read so far (each safe_psql is a session whose stats are flushed at exit)
sub blocks
{
	my ($idx) = @_;
	return sql(qq{SELECT coalesce(idx_blks_read + idx_blks_hit, 0)
	           FROM pg_statio_user_indexes WHERE indexrelname = '$idx'});
}

sub same_as_seqscan
{
	my ($t, $maxx, $what) = @_;
	index_matches_seqscan($node, $t,
		"SELECT generate_series(0, $maxx, 37) AS x", 20, $what);
	return;
}

sub churn
{
	my (%v) = @_;
	my $t = $v{table};
	my $opts = "order = $v{order}, fastupdate = $v{fastupdate}";
	my $what = "$t ($opts)";
	sql(qq{
		CREATE TABLE $t (id int PRIMARY KEY, f bloomfilter) WITH (autovacuum_enabled = off);
		INSERT INTO $t SELECT i, $v{mk}(i) FROM generate_series(0, $v{rows} - 1) i;
		CREATE INDEX ${t}_f ON $t USING bloofi (f) WITH ($opts);
	});
	my $built = sql("SELECT pg_relation_size('${t}_f') / 8192");
	my (@after, @vac, @ratio);
	my $bad = '';
	for my $round (1 .. 10)
	{
		sql("UPDATE $t SET f = bloom_add(f, (1000000 * $round + id)::bigint)");
		my $before = sql("SELECT pg_relation_size('${t}_f') / 8192");
		my $b0 = blocks("${t}_f");
		sql("VACUUM $t");
		my $b1 = blocks("${t}_f");
		push @vac, $b1 - $b0;
		push @ratio, ($b1 - $b0) / $before;
		push @after, sql("SELECT pg_relation_size('${t}_f') / 8192");
		my $chk = $node->psql('postgres', "SELECT bloofi_check('${t}_f')", stderr => \my $err);
		$bad .= "round $round: $err\n" if $chk != 0;
	}
	note "$what: built $built pages; after each VACUUM: @after; VACUUM block reads: @vac";
	is($bad, '', "$what: bloofi_check clean after every round");
	same_as_seqscan($t, 100 * $v{rows}, "$what, after 10 rounds");

	# the same table, indexed afresh (what REINDEX builds)
	sql("CREATE INDEX ${t}_fresh ON $t USING bloofi (f) WITH ($opts)");
	my $fresh = sql("SELECT pg_relation_size('${t}_fresh') / 8192");
	sql("DROP INDEX ${t}_fresh");
	cmp_ok($after[-1], '<=', 1.5 * $fresh,
		"$what: after 10 rounds the index ($after[-1] pages) is within 1.5x a fresh build ($fresh)");
	my $max = (sort { $b <=> $a } @after)[0];
	cmp_ok($max, '<=', 1.5 * $fresh, "$what: and was after every round (at most $max pages)");
	# VACUUM's work follows the index it finds (and, with fastupdate, the
	# pending entries it moves into the tree), not the rounds behind it
	my $maxratio = (sort { $b <=> $a } @ratio)[0];
	cmp_ok($maxratio, '<=', 20,
		"$what: VACUUM reads at most 20 blocks per page of the index it finds (at most "
		  . sprintf('%.1f', $maxratio) . ")");
	my $early = (sort { $b <=> $a } @vac[0 .. 4])[0];
	my $late = (sort { $b <=> $a } @vac[5 .. 9])[0];
	cmp_ok($late, '<=', 2 * $early,
		"$what: VACUUM's block reads do not grow with the rounds (at most $early in rounds 1-5, $late in 6-10)");
}

churn(table => 'cb', mk => 'mkbig', rows => 300, order => 2, fastupdate => 'off');
churn(table => 'cs', mk => 'mksmall', rows => 3000, order => 32, fastupdate => 'on');

# ---- when VACUUM cannot take the index's lock --------------------------------
# a reader holds the index (and a snapshot): retired nodes must wait
my $r = $node->background_psql('postgres');
$r->query_safe(q{BEGIN; SET enable_seqscan = off; SELECT count(*) FROM cs WHERE f @> 5::bigint});
sql("UPDATE cs SET f = bloom_add(f, (77000000 + id)::bigint)");
my $pages0 = sql("SELECT pg_relation_size('cs_f') / 8192");
sql("VACUUM cs");
my ($retired, $pages1) = split /\|/,
  sql("SELECT retired_pages, pg_relation_size('cs_f') / 8192 FROM bloofi_stats('cs_f')");
cmp_ok($retired, '>', 0, "retired nodes a reader may still read are kept ($retired pages)");
cmp_ok($pages1, '>=', $pages0, "the file is not truncated while a reader holds the index ($pages0 -> $pages1 pages)");
is(sql("SELECT bloofi_check('cs_f')"), '', 'bloofi_check clean with retired nodes waiting');

# an XID is consumed, then the reader moves to a newer snapshot (still
# holding the index): the retired nodes are older than every snapshot and
# the next VACUUM frees them, without the lock
sql("SELECT txid_current()");
$r->query_safe(q{COMMIT; BEGIN; SET enable_seqscan = off; SELECT count(*) FROM cs WHERE f @> 5::bigint});
sql("VACUUM cs");
my ($retired2, $free2, $pages2) = split /\|/,
  sql("SELECT retired_pages, free_pages, pg_relation_size('cs_f') / 8192 FROM bloofi_stats('cs_f')");
is($retired2, 0, 'VACUUM freed the retired nodes once no snapshot could read them');
cmp_ok($free2, '>=', $retired, "they are free pages now ($free2)");
cmp_ok($pages2, '>=', $pages1, 'still no truncation while the reader holds the index');

# new nodes of any size (splits, growth, merges) take the free pages first
sql("UPDATE cs SET f = bloom_add(f, (88000000 + id)::bigint)");
sql("VACUUM cs");
my ($free3, $pages3) = split /\|/,
  sql("SELECT free_pages, pg_relation_size('cs_f') / 8192 FROM bloofi_stats('cs_f')");
note "free pages $free2 -> $free3, file $pages2 -> $pages3 pages";
cmp_ok($free3, '<', $free2 / 2, "a round of updates reused the free pages ($free2 -> $free3 free)");
is(sql("SELECT bloofi_check('cs_f')"), '', 'bloofi_check clean after the reuse');
$r->query_safe('COMMIT');
$r->quit;

# the reader gone, VACUUM takes the lock: everything retired freed, the tail cut
sql("VACUUM cs");
my ($retired4, $pages4) = split /\|/,
  sql("SELECT retired_pages, pg_relation_size('cs_f') / 8192 FROM bloofi_stats('cs_f')");
is($retired4, 0, 'with the lock free, VACUUM frees every retired node');
cmp_ok($pages4, '<', $pages3, "and truncates the file ($pages3 -> $pages4 pages)");
is(sql("SELECT bloofi_check('cs_f')"), '', 'bloofi_check clean after truncation');
same_as_seqscan('cs', 30000, 'cs, after the lifecycle');

$node->stop;
done_testing();
