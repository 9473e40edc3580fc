# Extension upgrades: installing every released version and running
# ALTER EXTENSION bloomsample UPDATE gives exactly the objects of a fresh
# install of the current version: the same members, each with the same
# properties (function signatures, volatility, parallel safety, strictness,
# costs, support functions and bodies; operators with their estimators;
# operator classes and families with every member; aggregates with their
# support functions; types; tables, views and their columns; casts; access
# methods; comments and privileges; the extension's dump configuration).
# Data kept in 1.0 (filters, BloomSampleTrees) still reads after the update.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('upgrade');
$node->init;
$node->start;

my $current = $node->safe_psql('postgres',
	q{SELECT default_version FROM pg_available_extensions WHERE name = 'bloomsample'});
my @from = grep { $_ ne $current } split /\n/, $node->safe_psql('postgres',
	q{SELECT version FROM pg_available_extension_versions WHERE name = 'bloomsample' ORDER BY version});
ok(scalar(@from) >= 1, "older versions to upgrade from (current $current): @from");

# One line per extension member: its description and every property that an
# upgrade script could get wrong, with OIDs rendered as names.
my $describe = <<'SQL';
WITH ext AS (SELECT oid FROM pg_extension WHERE extname = 'bloomsample'),
mem AS (
  SELECT d.classid, d.objid, d.objsubid
  FROM pg_depend d, ext
  WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'
)
SELECT pg_describe_object(m.classid, m.objid, m.objsubid) || ' | ' ||
  coalesce(CASE m.classid
    WHEN 'pg_proc'::regclass THEN (
      SELECT concat_ws(' ', p.prokind, p.provolatile, p.proparallel, p.proisstrict, p.proretset,
               p.prosecdef, p.proleakproof, p.procost, p.prorows, p.prosupport::regproc,
               p.prorettype::regtype, pg_get_function_arguments(p.oid),
               pg_get_function_result(p.oid), l.lanname, p.prosrc, p.probin, p.proconfig,
               p.proacl,
               (SELECT concat_ws(' ', a.aggkind, a.aggnumdirectargs, a.aggtransfn::regproc,
                         a.aggfinalfn::regproc, a.aggcombinefn::regproc, a.aggserialfn::regproc,
                         a.aggdeserialfn::regproc, a.aggmtransfn::regproc,
                         a.aggminvtransfn::regproc, a.aggmfinalfn::regproc, a.aggfinalextra,
                         a.aggfinalmodify, a.aggsortop::regoperator, a.aggtranstype::regtype,
                         a.aggtransspace, a.agginitval)
                FROM pg_aggregate a WHERE a.aggfnoid = p.oid))
      FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE p.oid = m.objid)
    WHEN 'pg_operator'::regclass THEN (
      SELECT concat_ws(' ', o.oprkind, o.oprcanmerge, o.oprcanhash, o.oprresult::regtype,
               o.oprcom::regoperator, o.oprnegate::regoperator, o.oprcode::regproc,
               o.oprrest::regproc, o.oprjoin::regproc)
      FROM pg_operator o WHERE o.oid = m.objid)
    WHEN 'pg_type'::regclass THEN (
      SELECT concat_ws(' ', t.typlen, t.typbyval, t.typtype, t.typcategory, t.typispreferred,
               t.typdelim, t.typinput::regproc, t.typoutput::regproc, t.typreceive::regproc,
               t.typsend::regproc, t.typmodin::regproc, t.typmodout::regproc,
               t.typanalyze::regproc, t.typsubscript::regproc, t.typalign, t.typstorage,
               t.typnotnull, t.typbasetype::regtype, t.typtypmod, t.typcollation,
               t.typdefault, t.typacl, t.typelem::regtype, t.typarray::regtype)
      FROM pg_type t WHERE t.oid = m.objid)
    WHEN 'pg_opclass'::regclass THEN (
      SELECT concat_ws(' ', am.amname, c.opcdefault, c.opcintype::regtype,
               c.opckeytype::regtype, f.opfname)
      FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod
           JOIN pg_opfamily f ON f.oid = c.opcfamily
      WHERE c.oid = m.objid)
    WHEN 'pg_opfamily'::regclass THEN (
      SELECT concat_ws(' ', am.amname,
               (SELECT string_agg(concat_ws(':', o.amopstrategy, o.amoplefttype::regtype,
                         o.amoprighttype::regtype, o.amopopr::regoperator, o.amoppurpose,
                         o.amopsortfamily), ', ' ORDER BY o.amopstrategy,
                         o.amoplefttype::regtype::text, o.amoprighttype::regtype::text)
                FROM pg_amop o WHERE o.amopfamily = f.oid),
               (SELECT string_agg(concat_ws(':', p.amprocnum, p.amproclefttype::regtype,
                         p.amprocrighttype::regtype, p.amproc::regprocedure), ', '
                         ORDER BY p.amprocnum, p.amproclefttype::regtype::text,
                         p.amprocrighttype::regtype::text)
                FROM pg_amproc p WHERE p.amprocfamily = f.oid))
      FROM pg_opfamily f JOIN pg_am am ON am.oid = f.opfmethod WHERE f.oid = m.objid)
    WHEN 'pg_am'::regclass THEN (
      SELECT concat_ws(' ', a.amtype, a.amhandler::regproc) FROM pg_am a WHERE a.oid = m.objid)
    WHEN 'pg_cast'::regclass THEN (
      SELECT concat_ws(' ', c.castfunc::regprocedure, c.castcontext, c.castmethod)
      FROM pg_cast c WHERE c.oid = m.objid)
    WHEN 'pg_class'::regclass THEN (
      SELECT concat_ws(' ', r.relkind, r.relpersistence, r.reloptions, r.relacl,
               CASE WHEN r.relkind = 'v' THEN pg_get_viewdef(r.oid) END,
               (SELECT string_agg(concat_ws(':', a.attname, format_type(a.atttypid, a.atttypmod),
                         a.attnotnull, pg_get_expr(ad.adbin, ad.adrelid)), ', ' ORDER BY a.attnum)
                FROM pg_attribute a
                LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
                WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped),
               (SELECT string_agg(pg_get_constraintdef(c.oid), ', ' ORDER BY c.conname)
                FROM pg_constraint c WHERE c.conrelid = r.oid),
               (SELECT string_agg(pg_get_indexdef(i.indexrelid), ', ' ORDER BY 1)
                FROM pg_index i WHERE i.indrelid = r.oid))
      FROM pg_class r WHERE r.oid = m.objid)
  END, '') || ' | ' ||
  coalesce(obj_description(m.objid, m.classid::regclass::text), '')
FROM mem m
ORDER BY 1;
SQL

my $config = q{
  SELECT coalesce((SELECT string_agg(c::regclass::text, ',' ORDER BY 1) FROM unnest(extconfig) c), '')
         || ' | ' || coalesce(array_to_string(extcondition, ','), '')
  FROM pg_extension WHERE extname = 'bloomsample'};

$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION bloomsample');
my $want = $node->safe_psql('fresh', $describe);
my $want_config = $node->safe_psql('fresh', $config);
ok(scalar(split /\n/, $want) > 100, 'a fresh install describes its members');

foreach my $v (@from)
{
	my $db = "from_$v";
	$db =~ s/\W/_/g;
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, "CREATE EXTENSION bloomsample VERSION '$v'");
	# data written by the old version
	$node->safe_psql($db, q{
		CREATE TABLE kept (id int, f bloomfilter);
		INSERT INTO kept SELECT i, bloom_from_array(ARRAY[i, i + 1]::bigint[], 1024, 3) FROM generate_series(1, 200) i;
		CREATE INDEX kept_f ON kept USING bloofi (f);
		SELECT bst_create('kept_tree', 0, 10000, 1024, 3);
		SELECT bst_create_pruned('kept_pruned', 'SELECT x::bigint * 37 FROM generate_series(1, 500) x', 1024, 3);
	});
	my $before = $node->safe_psql($db, q{
		SELECT string_agg(id::text, ',' ORDER BY id) FROM kept WHERE f @> 77::bigint;
		SELECT string_agg(x::text, ',') FROM bst_reconstruct('kept_tree', (SELECT f FROM kept WHERE id = 50)) x});
	$node->safe_psql($db, 'ALTER EXTENSION bloomsample UPDATE');
	is($node->safe_psql($db,
		q{SELECT extversion FROM pg_extension WHERE extname = 'bloomsample'}),
		$current, "$v updates to $current");

	my $got = $node->safe_psql($db, $describe);
	if ($got ne $want)
	{
		# show the members that differ, not two pages of text
		my %w = map { $_ => 1 } split /\n/, $want;
		my %g = map { $_ => 1 } split /\n/, $got;
		diag("only after the upgrade: $_") for grep { !$w{$_} } sort keys %g;
		diag("only in a fresh install: $_") for grep { !$g{$_} } sort keys %w;
	}
	ok($got eq $want, "$v + ALTER EXTENSION UPDATE has the members of a fresh $current install");
	is($node->safe_psql($db, $config), $want_config,
		"$v + UPDATE: the same tables are dumped by pg_dump");

	is($node->safe_psql($db, q{
		SET enable_seqscan = off;
		SELECT string_agg(id::text, ',' ORDER BY id) FROM kept WHERE f @> 77::bigint;
		SELECT string_agg(x::text, ',') FROM bst_reconstruct('kept_tree', (SELECT f FROM kept WHERE id = 50)) x}),
		$before, "$v data (filters, bloofi index, trees) answers the same after the update");
	$node->safe_psql($db, 'SELECT bloofi_check(\'kept_f\')');
	# the old trees belong to the extension's owner; the catalog is no longer
	# readable by every role, nor a pruned tree usable
	is($node->safe_psql($db, q{
		SELECT string_agg(c.name || ':' || (c.owner = e.extowner) || ':' || cardinality(c.grantees), ',' ORDER BY c.name)
		FROM bst_tree_catalog c, pg_extension e WHERE e.extname = 'bloomsample'}),
		'kept_pruned:true:0,kept_tree:true:0', "$v + UPDATE: the trees are owned by the extension's owner");
	$node->safe_psql($db, "DROP ROLE IF EXISTS upgrade_outsider; CREATE ROLE upgrade_outsider");
	my ($rc, $out, $err) = $node->psql($db, q{
		SET ROLE upgrade_outsider;
		SELECT count(*) FROM bst_reconstruct('kept_pruned', bloom_from_array(ARRAY[37]::bigint[], 1024, 3))});
	like($err, qr/permission denied for BloomSampleTree "kept_pruned"/,
		"$v + UPDATE: another role cannot use the old pruned tree");
	($rc, $out, $err) = $node->psql($db, 'SET ROLE upgrade_outsider; SELECT count(*) FROM bst_tree_ids');
	like($err, qr/permission denied for table bst_tree_ids/, "$v + UPDATE: the ids are no longer public");
	is($node->safe_psql($db, q{
		SELECT count(*) FROM bst_reconstruct('kept_pruned', bloom_from_array(ARRAY[37, 74]::bigint[], 1024, 3))}),
		'2', "$v + UPDATE: the owner still uses the old pruned tree");
	# 1.0 kept no statistics of filter columns; after the update ANALYZE does
	is($node->safe_psql($db, q{
		ANALYZE kept;
		SELECT analyzed_rows || ' ' || sample_filters FROM bloom_column_stats('kept', 'f')}),
		'200 200', "$v + UPDATE: ANALYZE keeps the planner's statistics of filter columns");
}

$node->stop;
done_testing();
