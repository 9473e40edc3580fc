# Which BloomSampleTree a statement sees: always the one of the catalog row
# its snapshot sees, whatever other sessions commit or roll back meanwhile,
# under READ COMMITTED, REPEATABLE READ and SERIALIZABLE.
#
# Every answer is checked, in the same snapshot, against a dictionary attack
# over the catalog row (and the pruned tree's ids) that this snapshot sees:
# the probe() function below is STABLE, so its statements and the
# bst_reconstruct call inside it share the calling statement's snapshot.
#
# First the reproducers of the bugs this protocol fixed (a stale tree after a
# concurrent drop and re-create, after a concurrent bst_extend under
# REPEATABLE READ, a tree created in a rolled-back transaction), then a churn
# of random interleavings of create, extend, drop, rollback and readers.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('snapshots');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION bloomsample;
-- 'ok...' when bst_reconstruct(tname, q) answers what the dictionary attack
-- over the tree this snapshot sees answers (or both say the tree is absent)
CREATE FUNCTION probe(tname text, q bloomfilter) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
    got text;
    want text;
    knd text;
BEGIN
    SELECT c.kind INTO knd FROM bst_tree_catalog c WHERE c.name = tname;
    IF NOT FOUND THEN
        BEGIN
            SELECT coalesce(string_agg(x::text, ',' ORDER BY x), '') INTO got
            FROM bst_reconstruct(tname, q) x;
            RETURN 'MISMATCH: ' || tname || ' is absent from this snapshot, yet answered {' || got || '}';
        EXCEPTION WHEN undefined_object THEN
            RETURN 'ok absent';
        END;
    END IF;
    SELECT coalesce(string_agg(x::text, ',' ORDER BY x), '') INTO got FROM bst_reconstruct(tname, q) x;
    IF knd = 'full' THEN
        SELECT coalesce(string_agg(x::text, ',' ORDER BY x), '') INTO want
        FROM bst_tree_catalog c, bloom_dictionary_attack(q, c.namespace_lo, c.namespace_hi) x
        WHERE c.name = tname;
    ELSE
        SELECT coalesce(string_agg(u.x::text, ',' ORDER BY u.x), '') INTO want
        FROM (SELECT DISTINCT unnest(t.ids) AS x FROM bst_tree_ids t WHERE t.name = tname) u
        WHERE q @> u.x;
    END IF;
    IF got = want THEN
        RETURN 'ok {' || got || '}';
    END IF;
    RETURN 'MISMATCH: ' || tname || ' answered {' || got || '}, its row in this snapshot gives {' || want || '}';
END $$;
-- one id in each block of 1000 of [0, 10000): each generation of s answers differently
CREATE TABLE q AS
SELECT bloom_from_array(ARRAY(SELECT 1000 * b + 5 FROM generate_series(0, 9) b)::bigint[], 1024, 3) AS f;
});
my $q = '(SELECT f FROM q)';

my $a = $node->background_psql('postgres', on_error_stop => 0);
my $b = $node->background_psql('postgres', on_error_stop => 0);

# one statement of session s; its output, dying on an unexpected error
sub run
{
    my ($s, $sql) = @_;
    $s->{stderr} = '';
    my $out = $s->query($sql);
    die "unexpected error from \"$sql\": $s->{stderr}" if $s->{stderr} =~ /ERROR/;
    return $out;
}

# ---------------------------------------------------------------------------
# 1. a concurrent drop and re-create seen by a statement that started before
#    the commit, then by the next statements
# ---------------------------------------------------------------------------
run($a, q{SELECT bst_create('s', 0, 1000, 1024, 3)});
is(run($a, "SELECT probe('s', $q)"), 'ok {5}', 'A: s over [0, 1000) answers {5}');
# A's statement takes its snapshot, then sleeps while B drops and re-creates s
$a->query_until(qr/started/, "\\echo started\nSELECT pg_sleep(3), probe('s', $q);\n");
# "started" is printed before the statement runs: wait until it sleeps, its
# snapshot taken, so that B's commit comes after it on a loaded machine too
ok($node->poll_query_until('postgres',
        q{SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'}),
    'A\'s statement is running (its snapshot taken) before B commits');
run($b, q{BEGIN; SELECT bst_drop('s'); SELECT bst_create('s', 5000, 6000, 1024, 3); COMMIT});
my $out = run($a, q{SELECT 'next'});
like($out, qr/\|ok \{5\}\nnext$/, 'the statement that started before the commit answers from the old tree');
is(run($a, "SELECT probe('s', $q)"), 'ok {5005}', 'the next statement of A answers from the new tree');
is(run($a, q{SELECT string_agg(x::text, ',') FROM bst_reconstruct('s', (SELECT f FROM q)) x}),
    '5005', 'and so does a plain bst_reconstruct');

# ---------------------------------------------------------------------------
# 2. a concurrent bst_extend under REPEATABLE READ
# ---------------------------------------------------------------------------
run($a, q{SELECT bst_create_pruned('p', 'SELECT 5::bigint', 1024, 3)});
run($a, q{BEGIN ISOLATION LEVEL REPEATABLE READ});
is(run($a, "SELECT probe('p', $q)"), 'ok {5}', 'RR transaction of A: p holds 5');
run($b, q{SELECT bst_extend('p', ARRAY[1005, 2005]::bigint[])});
is(run($a, "SELECT probe('p', $q)"), 'ok {5}', 'the same RR transaction still sees p without the extension');
run($a, 'COMMIT');
is(run($a, "SELECT probe('p', $q)"), 'ok {5,1005,2005}', 'the next transaction sees the extension');

# ---------------------------------------------------------------------------
# 3. a tree created in a rolled-back transaction
# ---------------------------------------------------------------------------
run($a, q{BEGIN; SELECT bst_create('ghost', 0, 1000, 1024, 3)});
is(run($a, "SELECT probe('ghost', $q)"), 'ok {5}', 'inside its transaction the new tree answers');
run($a, 'ROLLBACK');
is(run($a, "SELECT probe('ghost', $q)"), 'ok absent', 'after ROLLBACK the creating session no longer has it');
run($b, q{SELECT bst_create('ghost', 5000, 5010, 1024, 3)});
is(run($a, "SELECT probe('ghost', $q)"), 'ok {5005}',
    'another session\'s ghost of the same name answers from its own range');
# the same with a savepoint
run($a, q{BEGIN; SAVEPOINT sp; SELECT bst_create('ghost2', 0, 1000, 1024, 3)});
is(run($a, "SELECT probe('ghost2', $q)"), 'ok {5}', 'created in a savepoint');
run($a, 'ROLLBACK TO sp');
is(run($a, "SELECT probe('ghost2', $q)"), 'ok absent', 'gone after ROLLBACK TO SAVEPOINT');
run($a, 'COMMIT');
my $datadir = $node->data_dir;

# ---------------------------------------------------------------------------
# 4. churn: random interleavings under each isolation level
# ---------------------------------------------------------------------------
my $seed = $ENV{BST_SNAPSHOT_SEED} // 20261126;
srand($seed);
note "churn seed $seed";
my %exists = (s => 1, p => 1);
my ($checks, $mismatches, $serialization) = (0, 0, 0);

# one random change by B: committed, or rolled back
sub writer_step
{
    my $op = int(rand(6));
    my $lo = 1000 * int(rand(10));
    my $hi = $lo + 1 + int(rand(999));
    if ($op == 0)
    {
        my $drop = $exists{s} ? q{SELECT bst_drop('s');} : '';
        run($b, "BEGIN; $drop SELECT bst_create('s', $lo, $hi, 1024, 3); COMMIT");
        $exists{s} = 1;
    }
    elsif ($op == 1 && $exists{s})
    {
        run($b, q{SELECT bst_drop('s')});
        $exists{s} = 0;
    }
    elsif ($op == 2)
    {
        my @ids = map { 1000 * int(rand(10)) + 5 + int(rand(3)) } 1 .. 3;
        my $arr = join(',', @ids);
        my $end = rand() < 0.3 ? 'ROLLBACK' : 'COMMIT';
        run($b, "BEGIN; SELECT bst_extend('p', ARRAY[$arr]::bigint[]); $end");
    }
    elsif ($op == 3)
    {
        my $drop = $exists{s} ? q{SELECT bst_drop('s');} : '';
        run($b, "BEGIN; $drop SELECT bst_create('s', $lo, $hi, 1024, 3); ROLLBACK");
    }
    elsif ($op == 4)
    {
        run($b, "BEGIN; SELECT bst_create('g', $lo, $hi, 1024, 3); SELECT probe('g', $q); ROLLBACK");
    }
    else
    {
        run($b, q{BEGIN; SELECT bst_drop('p'); SELECT bst_create_pruned('p', 'SELECT (1000 * (random() * 9)::int + 5)::bigint FROM generate_series(1, 3)', 1024, 3); COMMIT});
    }
}

# A's probes of every tree name, each checked in its own snapshot
sub check_all
{
    my ($s) = @_;
    foreach my $t (qw(s p g))
    {
        $s->{stderr} = '';
        my $r = $s->query("SELECT probe('$t', $q)");
        if ($s->{stderr} =~ /could not serialize/)
        {
            $serialization++;
            return 0;
        }
        die "probe failed: $s->{stderr}" if $s->{stderr} =~ /ERROR/;
        $checks++;
        if ($r !~ /^ok/)
        {
            $mismatches++;
            diag("$t: $r");
        }
    }
    return 1;
}

foreach my $level ('READ COMMITTED', 'REPEATABLE READ', 'SERIALIZABLE')
{
    for my $i (1 .. 200)
    {
        my $shape = int(rand(5));
        if ($shape == 0)
        {
            # autocommit statements around a change
            check_all($a);
            writer_step();
            check_all($a);
        }
        elsif ($shape == 1)
        {
            # a transaction of A spanning one or two changes of B
            run($a, "BEGIN ISOLATION LEVEL $level");
            my $ok = check_all($a);
            writer_step();
            $ok &&= check_all($a);
            writer_step() if rand() < 0.5;
            $ok &&= check_all($a);
            run($a, $ok ? 'COMMIT' : 'ROLLBACK');
            check_all($a);
        }
        elsif ($shape == 2)
        {
            # a statement whose snapshot predates B's commit
            run($a, "BEGIN ISOLATION LEVEL $level");
            $a->{stderr} = '';
            $a->query_until(qr/started/,
                "\\echo started\nSELECT pg_sleep(0.05), probe('s', $q), probe('p', $q);\n");
            writer_step();
            my $r = $a->query(q{SELECT 'next'});
            if ($a->{stderr} =~ /could not serialize/) { $serialization++; }
            else
            {
                $checks += 2;
                if ($r !~ /\|ok[^|]*\|ok/) { $mismatches++; diag("long statement: $r"); }
            }
            run($a, $a->{stderr} =~ /ERROR/ ? 'ROLLBACK' : 'COMMIT');
            check_all($a);
        }
        elsif ($shape == 3)
        {
            # A itself creates, extends or drops and rolls back (whole or to a savepoint)
            my $lo = 1000 * int(rand(10));
            my $sp = rand() < 0.5;
            run($a, "BEGIN ISOLATION LEVEL $level");
            run($a, 'SAVEPOINT sp') if $sp;
            $a->{stderr} = '';
            $a->query(rand() < 0.5
                ? "SELECT bst_create('g', $lo, " . ($lo + 500) . ", 1024, 3)"
                : "SELECT bst_extend('p', ARRAY[" . ($lo + 6) . "]::bigint[])");
            if ($a->{stderr} =~ /ERROR/) { run($a, 'ROLLBACK'); next; }
            check_all($a);
            run($a, 'ROLLBACK TO sp') if $sp;
            check_all($a) if $sp;
            run($a, 'ROLLBACK');
            check_all($a);
        }
        else
        {
            # several changes in a row, then several reads
            writer_step() for 1 .. 3;
            check_all($a) for 1 .. 2;
        }
    }
    note "$level: $checks checks so far, $mismatches mismatches, $serialization serialization failures";
}
cmp_ok($checks, '>=', 3 * 200 * 3, "churn: $checks answers checked against the catalog row of their snapshot");
is($mismatches, 0, 'churn: no answer from a tree the snapshot does not see');

# ---------------------------------------------------------------------------
# 5. build lock files and images of trees no catalog holds go at the next sweep
# ---------------------------------------------------------------------------
run($b, q{SELECT bst_create('sweeper', 0, 2000, 1024, 3)});
my $db = $node->safe_psql('postgres', q{SELECT oid FROM pg_database WHERE datname = 'postgres'});
my %hash_of = map { my ($n, $h) = split /\|/; ($h => $n) } split /\n/, $node->safe_psql('postgres',
    q{SELECT name, lpad(to_hex(hashtextextended(name, 0)), 16, '0') FROM bst_tree_catalog});
my @orphans;
foreach my $f (glob("$datadir/pg_stat_tmp/bloomsample/${db}_*"))
{
    my ($h) = $f =~ /\/${db}_([0-9a-f]{16})_/ or next;
    push @orphans, $f unless exists $hash_of{$h};
}
is(scalar(@orphans), 0, 'no lock file or image outlives its tree after the sweep')
  or diag(join("\n", @orphans));

$a->quit;
$b->quit;
$node->stop;
done_testing();
