# test/t/050_sharding.pl
#   Filters sharded over postgres_fdw, the recipe of README's "Beyond one
#   server" (docs/sharding.md): one coordinator and three shard clusters on
#   this machine (unix sockets only).  The coordinator holds a table of
#   filters hash-partitioned on id whose partitions are foreign tables
#   (async_capable) on the shards; each shard has its partition with a Bloofi
#   index, and every cluster the same BloomSampleTrees, copied from the
#   coordinator's catalog rows through foreign tables.  A local copy of the
#   same rows on the coordinator is the oracle of every result.  Checked:
#    - membership (@>, <@, bloom_contains; bigint, bytea, uuid, text), # and
#      the estimators run on the shards (EXPLAIN VERBOSE: Remote SQL), equal
#      to the local copy; a text literal is evaluated on the coordinator
#      (postgres_fdw 15 ships no collatable constant), bytea is the pushable
#      spelling of the same element;
#    - aggregates grouped by the partition key are pushed whole; global and
#      per-tag unions, intersections and cardinalities by per-shard partial
#      aggregates move one filter per shard and group;
#    - trees: created, extended and dropped on every shard, the agreement
#      check passes and names a shard that differs;
#    - distributed bst_reconstruct / bst_sample through shard-side views
#      gathered by async Append equal the coordinator's own answers;
#    - the Bloom semi-join ships the local keys' filter as a parameter, moves
#      a small fraction of the remote rows and answers as the plain join;
#    - the catalog properties Citus and postgres_fdw rely on: every aggregate
#      combines (and serialises an internal state), the operators' functions
#      are IMMUTABLE and PARALLEL SAFE, the type has binary I/O.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $coord = PostgreSQL::Test::Cluster->new('coord');
$coord->init;
$coord->start;
my @shards;
for my $i (1 .. 3)
{
	my $s = PostgreSQL::Test::Cluster->new("shard$i");
	$s->init;
	$s->start;
	push @shards, $s;
}

# ---- shards: the extension, one partition each with its Bloofi index ----------
for my $i (0 .. 2)
{
	$shards[$i]->safe_psql('postgres', qq{
		CREATE EXTENSION bloomsample;
		CREATE TABLE filters_p$i (id bigint PRIMARY KEY, tag int NOT NULL, f bloomfilter NOT NULL);
		CREATE INDEX filters_p${i}_f ON filters_p$i USING bloofi (f);
	});
}

# sharded_table($name, $columns, $options): SQL creating the table $name
# ($columns) partitioned by hash of id over the three shards: foreign
# partitions ${name}_p0 .. _p2 on shard1 .. shard3, each with the
# postgres_fdw OPTIONS ($options)
sub sharded_table
{
	my ($name, $columns, $options) = @_;
	my $sql = "\n\tCREATE TABLE $name ($columns) PARTITION BY HASH (id);";
	$sql .= "\n\tCREATE FOREIGN TABLE ${name}_p$_ PARTITION OF $name FOR VALUES WITH (MODULUS 3, REMAINDER $_)"
	  . "\n\t  SERVER shard" . ($_ + 1) . " OPTIONS ($options);"
	  for 0 .. 2;
	return $sql . "\n";
}

# ---- coordinator: servers, user mappings, the partitioned table ---------------
my $setup = q{
	CREATE EXTENSION bloomsample;
	CREATE EXTENSION postgres_fdw;
};
for my $i (0 .. 2)
{
	my ($host, $port, $n) = ($shards[$i]->host, $shards[$i]->port, $i + 1);
	$setup .= qq{
	CREATE SERVER shard$n FOREIGN DATA WRAPPER postgres_fdw
	  OPTIONS (host '$host', port '$port', dbname 'postgres',
	           extensions 'bloomsample', async_capable 'true');
	CREATE USER MAPPING FOR CURRENT_USER SERVER shard$n;
	};
}
$setup .= sharded_table('filters', 'id bigint NOT NULL, tag int NOT NULL, f bloomfilter NOT NULL',
	"batch_size '500'") . q{
	-- every filter holds 20 ids of [0, 20000), a text, its bytes and a uuid
	CREATE FUNCTION mk(i bigint) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS $$
	  SELECT bloom_add(bloom_add(bloom_from_array(
	           ARRAY(SELECT (i * 37 + j * 1009) % 20000 FROM generate_series(0, 19) j)::bigint[],
	           1024, 3), 'u' || i), md5(i::text)::uuid) $$;
	CREATE TABLE filters_local AS SELECT i::bigint AS id, (i % 5)::int AS tag, mk(i) AS f
	  FROM generate_series(1, 1500) i;
	INSERT INTO filters SELECT * FROM filters_local;
	ANALYZE filters_local;
};
$coord->safe_psql('postgres', $setup);
for my $i (0 .. 2)
{
	$shards[$i]->safe_psql('postgres', "ANALYZE filters_p$i");
	cmp_ok($shards[$i]->safe_psql('postgres', "SELECT count(*) FROM filters_p$i"), '>', 400,
		"shard " . ($i + 1) . " holds its share of the rows");
}
is($coord->safe_psql('postgres', 'SELECT count(*) FROM filters'), '1500', 'the coordinator sees every row');

# the query on the sharded table and on the local copy, each result as one string
sub same_answer
{
	my ($what, $q) = @_;
	(my $local = $q) =~ s/\bfilters\b/filters_local/g;
	my $got = $coord->safe_psql('postgres', $q);
	my $want = $coord->safe_psql('postgres', $local);
	ok($want ne '', "$what: the local copy answers");
	is($got, $want, "$what: the shards answer as the local copy");
}

# plan_of($q, $analyze, $set): the plan of $q, executed when $analyze, after
# the statements $set
sub plan_of
{
	my ($q, $analyze, $set) = @_;
	my $opts = $analyze ? 'ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF' : 'VERBOSE, COSTS OFF';
	$set //= '';
	return $coord->safe_psql('postgres',
		"SET enable_partitionwise_aggregate = on; $set EXPLAIN ($opts) $q");
}

# remote SQL lines of a plan, each must hold $re (one per shard)
sub pushed
{
	my ($what, $q, $re) = @_;
	my $plan = plan_of($q);
	my @remote = $plan =~ /Remote SQL: (.*)/g;
	is(scalar(@remote), 3, "$what: one remote query per shard");
	is(scalar(grep { /$re/ } @remote), 3, "$what: runs on the shards") or diag($plan);
	return $plan;
}

# ---- membership, every element type ------------------------------------------
my %member = (
	'bigint @>' => ['SELECT string_agg(id::text, \',\' ORDER BY id) FROM filters WHERE f @> 4242::bigint',
		qr/WHERE \(\(f OPERATOR\(public\.\@>\) 4242::bigint\)\)/],
	'bigint <@' => ['SELECT string_agg(id::text, \',\' ORDER BY id) FROM filters WHERE 7777::bigint <@ f',
		qr/OPERATOR\(public\.<\@\) f/],
	'int4 (as bigint)' => ['SELECT string_agg(id::text, \',\' ORDER BY id) FROM filters WHERE f @> 1009',
		qr/OPERATOR\(public\.\@>\)/],
	'bytea' => ['SELECT string_agg(id::text, \',\' ORDER BY id) FROM filters WHERE \'u77\'::bytea <@ f',
		qr/x753737'::bytea OPERATOR\(public\.<\@\) f/],
	'uuid' => ['SELECT string_agg(id::text, \',\' ORDER BY id) FROM filters WHERE f @> md5(\'99\')::uuid',
		qr/f OPERATOR\(public\.\@>\) '[0-9a-f-]{36}'::uuid/],
	'bloom_contains' => ['SELECT string_agg(id::text, \',\' ORDER BY id) FROM filters WHERE bloom_contains(f, 123::bigint)',
		qr/public\.bloom_contains\(f, 123::bigint\)/],
);
for my $what (sort keys %member)
{
	my ($q, $re) = @{ $member{$what} };
	pushed("membership, $what", $q, $re);
	same_answer("membership, $what", $q);
}
is($coord->safe_psql('postgres', q{SELECT count(*) FROM filters WHERE f @> 'u77'::bytea}), '1',
	'a text element and its bytes are the same element (bytea finds the row of u77)');
my $text_q = q{SELECT string_agg(id::text, ',' ORDER BY id) FROM filters WHERE 'u77'::text <@ f};
like(plan_of($text_q), qr/Filter: \('u77'::text <@ filters_\d+\.f\)/,
	'membership, text literal: evaluated on the coordinator (a collatable constant is not shipped)');
same_answer('membership, text literal', $text_q);

# the shard answers a pushed membership query with its Bloofi index
like($shards[0]->safe_psql('postgres',
		'SET enable_seqscan = off; EXPLAIN (COSTS OFF) SELECT id FROM filters_p0 WHERE f @> 4242::bigint'),
	qr/Bitmap Index Scan on filters_p0_f/, 'a shard can answer the remote membership query with its Bloofi index');

# ---- estimators ----------------------------------------------------------------
pushed('# in WHERE', q{SELECT count(*) FROM filters WHERE # f > 21.5},
	qr/WHERE \(\(\(OPERATOR\(public\.#\) f\) > 21\.5::double precision\)\)/);
same_answer('# in WHERE', q{SELECT count(*) FROM filters WHERE # f > 21.5});
my $est = q{SELECT id, round(sum(# f)::numeric, 6), round(sum(bloom_fill_ratio(f))::numeric, 6),
	round(sum(bloom_jaccard(f, mk(7)))::numeric, 6), round(sum(bloom_intersection_cardinality(f, mk(7)))::numeric, 6)
	FROM filters GROUP BY id ORDER BY id};
# mk() is the coordinator's own function: inline its value for the shards
(my $est_pushable = $est) =~ s/mk\(7\)/'@{[ $coord->safe_psql('postgres', 'SELECT mk(7)') ]}'::bloomfilter/g;
pushed('estimators, grouped by the partition key', $est_pushable,
	qr/SELECT id, round\(sum\(\(OPERATOR\(public\.#\) f\)\).*sum\(public\.bloom_fill_ratio\(f\)\).*sum\(public\.bloom_jaccard\(f, .* GROUP BY 1/);
same_answer('estimators, grouped by the partition key', $est_pushable);

# ---- aggregates ----------------------------------------------------------------
pushed('bloom_union_agg grouped by the partition key',
	q{SELECT id, bloom_union_agg(f) FROM filters GROUP BY id}, qr/public\.bloom_union_agg\(f\) FROM public\.filters_p\d GROUP BY 1/);
same_answer('bloom_union_agg grouped by the partition key',
	q{SELECT string_agg(id || ':' || md5(u::text), ',' ORDER BY id) FROM (SELECT id, bloom_union_agg(f) u FROM filters GROUP BY id) s});

# no GROUP BY: PostgreSQL 15 pulls every filter (partial aggregates are not shipped)
my $naive = plan_of(q{SELECT bloom_union_agg(f) FROM filters}, 1);
like($naive, qr/Remote SQL: SELECT f FROM public\.filters_p0/, 'a plain global aggregate pulls the filters');

# per-shard partial aggregates combined on the coordinator
my $global = q{
	SELECT md5(bloom_union_agg(u)::text), md5(bloom_intersect_agg(i)::text), round((# bloom_union_agg(u))::numeric, 6)
	FROM (SELECT bloom_union_agg(f) u, bloom_intersect_agg(f) i FROM filters_p0
	      UNION ALL SELECT bloom_union_agg(f), bloom_intersect_agg(f) FROM filters_p1
	      UNION ALL SELECT bloom_union_agg(f), bloom_intersect_agg(f) FROM filters_p2) s};
my $plan = plan_of($global, 1);
my @rows = $plan =~ /Async Foreign Scan \(actual rows=(\d+)(?:\.\d+)? loops=1\)/g;
is(join(',', @rows), '1,1,1', 'global aggregate: one row (one filter per aggregate) from each shard, concurrently')
  or diag($plan);
like($plan, qr/Remote SQL: SELECT public\.bloom_union_agg\(f\), public\.bloom_intersect_agg\(f\) FROM public\.filters_p0/,
	'global aggregate: the shard aggregates its partition');
is($coord->safe_psql('postgres', $global),
	$coord->safe_psql('postgres', q{SELECT md5(bloom_union_agg(f)::text), md5(bloom_intersect_agg(f)::text),
		round((# bloom_union_agg(f))::numeric, 6) FROM filters_local}),
	'global union, intersection and cardinality equal the local copy\'s');

my $by_tag = q{
	SELECT tag, md5(bloom_union_agg(u)::text), md5(bloom_intersect_agg(i)::text)
	FROM (SELECT tag, bloom_union_agg(f) u, bloom_intersect_agg(f) i FROM filters_p0 GROUP BY tag
	      UNION ALL SELECT tag, bloom_union_agg(f), bloom_intersect_agg(f) FROM filters_p1 GROUP BY tag
	      UNION ALL SELECT tag, bloom_union_agg(f), bloom_intersect_agg(f) FROM filters_p2 GROUP BY tag) s
	GROUP BY tag ORDER BY tag};
$plan = plan_of($by_tag, 1);
@rows = $plan =~ /Async Foreign Scan \(actual rows=(\d+)(?:\.\d+)? loops=1\)/g;
is(join(',', @rows), '5,5,5', 'per-tag aggregate: one filter per shard and group moved') or diag($plan);
is($coord->safe_psql('postgres', $by_tag),
	$coord->safe_psql('postgres', q{SELECT tag, md5(bloom_union_agg(f)::text), md5(bloom_intersect_agg(f)::text)
		FROM filters_local GROUP BY tag ORDER BY tag}),
	'per-tag union and intersection equal the local copy\'s');

# ---- BloomSampleTrees on every shard -------------------------------------------
# the shards' catalog tables as foreign tables, one schema per shard
$coord->safe_psql('postgres', join('', map { qq{
	CREATE SCHEMA shard${_}_bst;
	IMPORT FOREIGN SCHEMA public LIMIT TO (bst_tree_catalog, bst_tree_ids)
	  FROM SERVER shard$_ INTO shard${_}_bst;
} } 1 .. 3));
# copy (or re-copy after bst_extend) a tree's rows to every shard, in one transaction
my $sync = q{
	DO $$
	DECLARE s text;
	BEGIN
	  FOREACH s IN ARRAY ARRAY['shard1_bst', 'shard2_bst', 'shard3_bst'] LOOP
	    EXECUTE format('DELETE FROM %I.bst_tree_ids WHERE name = ANY($1)', s) USING ARRAY['ids', 'occ'];
	    EXECUTE format('DELETE FROM %I.bst_tree_catalog WHERE name = ANY($1)', s) USING ARRAY['ids', 'occ'];
	    EXECUTE format('INSERT INTO %I.bst_tree_catalog SELECT * FROM bst_tree_catalog WHERE name = ANY($1)', s)
	      USING ARRAY['ids', 'occ'];
	    EXECUTE format('INSERT INTO %I.bst_tree_ids SELECT * FROM bst_tree_ids WHERE name = ANY($1)', s)
	      USING ARRAY['ids', 'occ'];
	  END LOOP;
	END $$;
};
# the agreement check: every tree of the coordinator on every shard with the
# same parameters, generation and stored ids; lists the differences
my $agree = q{
	WITH t AS (
	  SELECT 'coordinator' AS server, c.name,
	         md5(row(c.kind, c.namespace_lo, c.namespace_hi, c.m, c.k, c.seed, c.hash, c.leaf_size,
	                 c.depth, c.generation)::text
	             || coalesce((SELECT string_agg(i.ids::text, ';' ORDER BY i.chunk) FROM bst_tree_ids i
	                          WHERE i.name = c.name), '')) AS fp
	  FROM bst_tree_catalog c
	  UNION ALL
	  SELECT 'shard1', c.name, md5(row(c.kind, c.namespace_lo, c.namespace_hi, c.m, c.k, c.seed, c.hash,
	         c.leaf_size, c.depth, c.generation)::text || coalesce((SELECT string_agg(i.ids::text, ';' ORDER BY i.chunk)
	         FROM shard1_bst.bst_tree_ids i WHERE i.name = c.name), '')) FROM shard1_bst.bst_tree_catalog c
	  UNION ALL
	  SELECT 'shard2', c.name, md5(row(c.kind, c.namespace_lo, c.namespace_hi, c.m, c.k, c.seed, c.hash,
	         c.leaf_size, c.depth, c.generation)::text || coalesce((SELECT string_agg(i.ids::text, ';' ORDER BY i.chunk)
	         FROM shard2_bst.bst_tree_ids i WHERE i.name = c.name), '')) FROM shard2_bst.bst_tree_catalog c
	  UNION ALL
	  SELECT 'shard3', c.name, md5(row(c.kind, c.namespace_lo, c.namespace_hi, c.m, c.k, c.seed, c.hash,
	         c.leaf_size, c.depth, c.generation)::text || coalesce((SELECT string_agg(i.ids::text, ';' ORDER BY i.chunk)
	         FROM shard3_bst.bst_tree_ids i WHERE i.name = c.name), '')) FROM shard3_bst.bst_tree_catalog c)
	SELECT coalesce(string_agg(s.server || ':' || n.name, ' ' ORDER BY n.name, s.server), 'agree')
	FROM (SELECT DISTINCT name FROM t) n
	CROSS JOIN (VALUES ('shard1'), ('shard2'), ('shard3')) s(server)
	WHERE (SELECT fp FROM t WHERE t.server = s.server AND t.name = n.name)
	      IS DISTINCT FROM (SELECT fp FROM t WHERE t.server = 'coordinator' AND t.name = n.name)
};
$coord->safe_psql('postgres', q{
	SELECT bst_create('ids', 0, 20000, 1024, 3);
	CREATE TABLE occ AS SELECT DISTINCT (i * 37 + j * 1009) % 20000 AS x
	  FROM generate_series(1, 1500) i, generate_series(0, 19) j WHERE i % 2 = 0;
	SELECT bst_create_pruned('occ', 'SELECT x::bigint FROM occ', 1024, 3);
});
is($coord->safe_psql('postgres', $agree), 'shard1:ids shard2:ids shard3:ids shard1:occ shard2:occ shard3:occ',
	'the agreement check lists the trees the shards lack');
$coord->safe_psql('postgres', $sync);
is($coord->safe_psql('postgres', $agree), 'agree', 'after the copy every shard has the same trees');
is($shards[1]->safe_psql('postgres', q{SELECT string_agg(name || ':' || kind || ':' || ids, ' ' ORDER BY name) FROM bst_trees}),
	$coord->safe_psql('postgres', q{SELECT string_agg(name || ':' || kind || ':' || ids, ' ' ORDER BY name) FROM bst_trees}),
	'a shard lists the same trees');

# ---- distributed reconstruction and sampling ------------------------------------
for my $i (0 .. 2)
{
	$shards[$i]->safe_psql('postgres', qq{
		CREATE VIEW filter_members AS
		  SELECT p.id, ARRAY(SELECT bst_reconstruct('ids', p.f)) AS members,
		         ARRAY(SELECT bst_reconstruct('occ', p.f)) AS occ_members
		  FROM filters_p$i p;
		CREATE VIEW filter_samples AS
		  SELECT p.id, ARRAY(SELECT bst_sample('ids', p.f, 5)) AS samples FROM filters_p$i p;
	});
}
$coord->safe_psql('postgres',
	sharded_table('filter_members', 'id bigint NOT NULL, members bigint[], occ_members bigint[]',
		"table_name 'filter_members'")
	  . sharded_table('filter_samples', 'id bigint NOT NULL, samples bigint[]', "table_name 'filter_samples'"));
# (OFFSET 0: from PostgreSQL 16 on the planner would feed the ordered aggregate
# through a Merge Append of sorted shard scans, which runs them one by one)
my $job = q{SELECT string_agg(id || ':' || md5(members::text) || ':' || md5(occ_members::text), ',' ORDER BY id)
	FROM (SELECT * FROM filter_members OFFSET 0) j};
like(plan_of($job), qr/Async Foreign Scan on public\.filter_members_p0.*Async Foreign Scan on public\.filter_members_p1.*Async Foreign Scan on public\.filter_members_p2/s,
	'reconstruction job: the shards run concurrently (async Append)');
my $oracle = q{SELECT string_agg(id || ':' || md5(ARRAY(SELECT bst_reconstruct('ids', f))::text) || ':'
	|| md5(ARRAY(SELECT bst_reconstruct('occ', f))::text), ',' ORDER BY id) FROM filters_local};
is($coord->safe_psql('postgres', $job), $coord->safe_psql('postgres', $oracle),
	'reconstruction job on the shards equals the coordinator\'s own reconstruction (full and pruned tree)');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM filter_members WHERE 4242 = ANY(members)}),
	$coord->safe_psql('postgres', q{SELECT count(*) FROM filters_local WHERE f @> 4242::bigint}),
	'reconstructions agree with membership tests');
# samples: 5 per filter, each a member the coordinator reconstructs for that filter
is($coord->safe_psql('postgres', q{
	SELECT count(*) FILTER (WHERE cardinality(s.samples) <> 5),
	       count(*) FILTER (WHERE NOT s.samples <@ ARRAY(SELECT bst_reconstruct('ids', l.f)))
	FROM filter_samples s JOIN filters_local l USING (id)}), '0|0',
	'sampling job: 5 samples per filter, each a member of its filter\'s reconstruction');

# extend the pruned tree: stale shards are detected, a new copy makes them agree
$coord->safe_psql('postgres', q{SELECT bst_extend('occ', ARRAY[4242, 7777, 123]::bigint[])});
is($coord->safe_psql('postgres', $agree), 'shard1:occ shard2:occ shard3:occ',
	'after bst_extend on the coordinator the check names every stale shard');
$coord->safe_psql('postgres', $sync);
is($coord->safe_psql('postgres', $agree), 'agree', 'after the new copy the shards agree');
is($coord->safe_psql('postgres', $job), $coord->safe_psql('postgres', $oracle),
	'the shards reconstruct with the extended tree (their cached trees were rebuilt)');
# a shard whose tree was changed behind the coordinator's back is named
$shards[1]->safe_psql('postgres', q{UPDATE bst_tree_catalog SET generation = generation + 1 WHERE name = 'ids'});
is($coord->safe_psql('postgres', $agree), 'shard2:ids', 'a shard with another generation is named');
$coord->safe_psql('postgres', $sync);
is($coord->safe_psql('postgres', $agree), 'agree', 'and repaired by the copy');

# ---- the Bloom semi-join ----------------------------------------------------------
$shards[0]->safe_psql('postgres', q{
	CREATE TABLE events (key bigint NOT NULL, payload text NOT NULL);
	INSERT INTO events SELECT i, md5(i::text) FROM generate_series(1, 50000) i;
	ANALYZE events;
});
$coord->safe_psql('postgres', q{
	CREATE FOREIGN TABLE events (key bigint NOT NULL, payload text NOT NULL) SERVER shard1;
	CREATE TABLE local_keys AS SELECT (i * 97)::bigint AS k FROM generate_series(1, 300) i;
	ANALYZE local_keys;
});
my $plain = q{SELECT count(*), md5(string_agg(e.payload, ',' ORDER BY e.key)) FROM local_keys l JOIN events e ON e.key = l.k};
# m and k for 300 keys at a false-positive rate of 0.001: bloom_optimal_m / bloom_optimal_k
my ($m, $k) = split /\|/, $coord->safe_psql('postgres',
	q{SELECT bloom_optimal_m(300, 0.001), bloom_optimal_k(bloom_optimal_m(300, 0.001), 300)});
my $semi = qq{SELECT count(*), md5(string_agg(e.payload, ',' ORDER BY e.key)) FROM local_keys l JOIN events e ON e.key = l.k
	WHERE e.key <@ (SELECT bloom_agg(k, $m, $k) FROM local_keys)};
is($coord->safe_psql('postgres', $semi), $coord->safe_psql('postgres', $plain),
	'the Bloom semi-join answers as the plain join');
# hash joins: a merge join (17's choice for the plain join) stops fetching the
# remote rows after the last local key, which would hide what each join moves
my $no_merge = 'SET enable_mergejoin = off;';
my ($plain_rows) = plan_of($plain, 1, $no_merge) =~ /Foreign Scan on public\.events e \(actual rows=(\d+)/;
$plan = plan_of($semi, 1, $no_merge);
my ($semi_rows) = $plan =~ /Foreign Scan on public\.events e \(actual rows=(\d+)/;
like($plan, qr/Remote SQL: SELECT key, payload FROM public\.events WHERE \(\(key OPERATOR\(public\.<\@\) \$1::public\.bloomfilter\)\)/,
	'the local keys\' filter is shipped as a parameter');
is($plain_rows, 50000, 'the plain join moves every remote row');
cmp_ok($semi_rows, '>=', 300, 'the Bloom semi-join moves every match');
cmp_ok($semi_rows, '<=', 300 + 50000 * 0.005, 'and few false positives (rate 0.001 expected)');

# ---- catalog properties postgres_fdw and Citus rely on -----------------------------
my $ext = q{(SELECT objid FROM pg_depend WHERE refclassid = 'pg_extension'::regclass
	AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomsample')
	AND classid = 'pg_proc'::regclass AND deptype = 'e')};
is($coord->safe_psql('postgres', qq{
	SELECT coalesce(string_agg(p.oid::regprocedure::text, ' '), 'none')
	FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
	WHERE p.oid IN $ext AND (a.aggcombinefn = 0 OR p.proparallel <> 's'
	      OR (a.aggtranstype = 'internal'::regtype AND (a.aggserialfn = 0 OR a.aggdeserialfn = 0)))}),
	'none', 'every aggregate has a combine function, serialises an internal state and is PARALLEL SAFE');
cmp_ok($coord->safe_psql('postgres', qq{
	SELECT count(*) FROM pg_aggregate a WHERE a.aggfnoid IN $ext}), '>=', 14, 'the aggregates checked');
is($coord->safe_psql('postgres', qq{
	SELECT coalesce(string_agg(DISTINCT o.oprname || ' ' || o.oprcode::regproc::text, ' '), 'none')
	FROM pg_operator o JOIN pg_proc p ON p.oid = o.oprcode
	WHERE o.oprcode IN $ext AND (p.provolatile <> 'i' OR p.proparallel <> 's')}),
	'none', 'every operator\'s function is IMMUTABLE and PARALLEL SAFE (shippable, parallel)');
is($coord->safe_psql('postgres', qq{
	SELECT coalesce(string_agg(p.oid::regprocedure::text, ' ' ORDER BY 1), 'none') FROM pg_proc p
	WHERE p.oid IN $ext AND p.prokind = 'f' AND p.provolatile = 'i' AND p.proparallel <> 's'}),
	'none', 'every IMMUTABLE function is PARALLEL SAFE');
# the aggregate over a non-internal state that docs/sharding.md suggests for a Citus
# that cannot ship internal states
is($coord->safe_psql('postgres', q{
	CREATE AGGREGATE app_union(bloomfilter) (SFUNC = bloom_union, STYPE = bloomfilter,
	                                         COMBINEFUNC = bloom_union, PARALLEL = SAFE);
	SELECT string_agg(tag || ':' || same, ',' ORDER BY tag)
	  || ';' || (SELECT (app_union(f) IS NULL)::text FROM filters_local WHERE false)
	FROM (SELECT tag, (app_union(f) = bloom_union_agg(f))::text AS same FROM filters_local GROUP BY tag) s}),
	'0:true,1:true,2:true,3:true,4:true;true', 'an aggregate with a bloomfilter state equals bloom_union_agg');
is($coord->safe_psql('postgres', q{
	SELECT typsend <> 0 AND typreceive <> 0 FROM pg_type WHERE typname = 'bloomfilter'}),
	't', 'the type has binary I/O (COPY BINARY, Citus)');
# every estimator and constructor a shard is asked to run is shippable
is($coord->safe_psql('postgres', q{
	SELECT coalesce(string_agg(p.proname, ' ' ORDER BY p.proname), 'none') FROM pg_proc p
	WHERE p.proname IN ('bloom_cardinality', 'bloom_intersection_cardinality', 'bloom_union_cardinality',
	                    'bloom_jaccard', 'bloom_fill_ratio', 'bloom_fp_rate', 'bloom_popcount',
	                    'bloom_from_array', 'bloom_add', 'bloom_contains', 'bloom_contained', 'bloom_union',
	                    'bloom_intersect', 'bloom_m', 'bloom_k')
	  AND p.provolatile <> 'i'}), 'none', 'the estimators and constructors are IMMUTABLE');

$coord->stop;
$_->stop for @shards;
done_testing();
