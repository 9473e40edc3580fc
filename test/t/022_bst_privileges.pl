# BloomSampleTree ownership and privileges, with a trusted install.
#  - a database owner without superuser (alice) installs the extension
#    (trusted = true) and creates trees (no grant on the extension's tables);
#  - the issue's reproducers: a pruned tree over a private table leaked its
#    ids to every role (catalog tables, bst_info, bst_reconstruct with an
#    all-ones filter); bst_trees had no grant; alice could not create a tree;
#  - three roles: the owner alice, the grantee carol, the outsider bob.  Bob
#    gets nothing of a pruned tree by any path (each one listed below); carol
#    samples and reconstructs, and gets exactly the owner's answer, but can
#    neither extend, drop nor grant; a full tree is usable by every role and
#    changed by its owner only;
#  - a revoke reaches an open session at its next call; SET ROLE within one
#    session (warm cache) and within one statement (a warm call site) is
#    honoured;
#  - bst_set_owner follows ALTER TABLE ... OWNER TO's rules;
#  - bloomsample.bst_memory_limit and bst_shared_limit cannot be raised by a
#    non-superuser;
#  - pg_dump (by alice) and pg_restore into a fresh cluster whose roles have
#    other oids keep owners and grants.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('bst_priv');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
    CREATE ROLE alice LOGIN;
    CREATE ROLE bob LOGIN;
    CREATE ROLE carol LOGIN;
    CREATE DATABASE shop OWNER alice;
});

# run $sql in shop as $role; returns (stdout, stderr)
sub as
{
	my ($n, $role, $sql) = @_;
	my ($rc, $out, $err) = $n->psql('shop', $sql, extra_params => [ '-U', $role ]);
	return ($out, $err);
}

sub as_ok
{
	my ($n, $role, $sql) = @_;
	return $n->safe_psql('shop', $sql, extra_params => [ '-U', $role ]);
}

# ---------------------------------------------------------------------------
# trusted install by the database owner; alice creates trees
# ---------------------------------------------------------------------------
my ($out, $err) = as($node, 'alice', 'CREATE EXTENSION bloomsample');
is($err, '', 'a database owner without superuser installs the extension (trusted)');
is(as_ok($node, 'alice', q{SELECT extowner::regrole FROM pg_extension WHERE extname = 'bloomsample'}),
	'alice', 'alice owns the extension');

as_ok($node, 'alice', q{
    CREATE TABLE secret(id bigint);
    INSERT INTO secret SELECT (x * 7919) % 1000003 FROM generate_series(1, 5000) x;
    REVOKE ALL ON secret FROM PUBLIC;
    CREATE TABLE allones AS SELECT bloom_agg(x, 4096, 3) AS q FROM generate_series(1::bigint, 100000) x;
    GRANT SELECT ON allones TO PUBLIC;
});
($out, $err) = as($node, 'alice', q{
    SELECT bst_create_pruned('sec', 'SELECT id FROM secret', 4096, 3);
    SELECT bst_create('pub', 0, 100000, 4096, 3);
});
is($err, '', 'alice (CREATE on the schema, no grant on the catalog tables) creates trees');
my $all_ids = as_ok($node, 'alice', 'SELECT md5(string_agg(id::text, \',\' ORDER BY id)) FROM (SELECT DISTINCT id FROM secret) s');
my $recon = q{SELECT md5(string_agg(x::text, ',' ORDER BY x)) FROM allones, bst_reconstruct('sec', allones.q) x};
is(as_ok($node, 'alice', $recon), $all_ids, 'the owner reconstructs every id of her tree');
is(as_ok($node, 'alice', q{SELECT owner || ' ' || grantees::text FROM bst_trees WHERE name = 'sec'}),
	'alice {}', 'bst_trees shows the owner');

# the superuser's pruned tree over its own private table (the issue's setup)
$node->safe_psql('shop', q{
    CREATE TABLE susecret AS SELECT x::bigint * 3 AS id FROM generate_series(1, 5000) x;
    REVOKE ALL ON susecret FROM PUBLIC;
    SELECT bst_create_pruned('susec', 'SELECT id FROM susecret', 4096, 3);
    DROP TABLE susecret;  -- the tree keeps its ids; alice dumps the database below
});

# the source query runs as the caller: bob may not read secret
($out, $err) = as($node, 'bob', q{SELECT bst_create_pruned('steal', 'SELECT id FROM secret', 4096, 3)});
like($err, qr/permission denied for schema public/, 'bob (no CREATE on the schema) cannot create trees');
$node->safe_psql('shop', 'GRANT CREATE ON SCHEMA public TO bob');
($out, $err) = as($node, 'bob', q{SELECT bst_create_pruned('steal', 'SELECT id FROM secret', 4096, 3)});
like($err, qr/permission denied for table secret/, 'bst_create_pruned runs its query as the caller');
($out, $err) = as($node, 'bob', q{SELECT bst_create('bobs', 0, 1000, 1024, 3)});
is($err, '', 'with CREATE on the schema bob creates his own tree');

# ---------------------------------------------------------------------------
# bob, the outsider: every path
# ---------------------------------------------------------------------------
my @denied = (
	[ 'SELECT * FROM bst_tree_ids', qr/permission denied for table bst_tree_ids/ ],
	[ 'SELECT * FROM bst_tree_catalog', qr/permission denied for table bst_tree_catalog/ ],
	[ q{SELECT * FROM bst_info('sec')}, qr/permission denied for BloomSampleTree "sec"/ ],
	[ q{SELECT * FROM bst_info('susec')}, qr/permission denied for BloomSampleTree "susec"/ ],
	[ q{SELECT count(*) FROM allones, bst_sample('sec', allones.q, 10)}, qr/permission denied for BloomSampleTree "sec"/ ],
	[ q{SELECT count(*) FROM allones, bst_reconstruct('sec', allones.q)}, qr/permission denied for BloomSampleTree "sec"/ ],
	[ q{SELECT count(*) FROM allones, bst_reconstruct('susec', allones.q)}, qr/permission denied for BloomSampleTree "susec"/ ],
	[ q{SELECT * FROM allones, bst_sample_stats('sec', allones.q, 10)}, qr/permission denied for BloomSampleTree "sec"/ ],
	[ q{SELECT * FROM allones, bst_reconstruct_stats('sec', allones.q)}, qr/permission denied for BloomSampleTree "sec"/ ],
	# a filter of other parameters: refused before the tree's are shown
	[ q{SELECT count(*) FROM bst_sample('sec', bloom_empty(64, 1), 1)}, qr/permission denied for BloomSampleTree "sec"/ ],
	[ q{SELECT bst_extend('sec', ARRAY[1, 2, 3]::bigint[])}, qr/must be owner of BloomSampleTree "sec"/ ],
	[ q{SELECT bst_drop('sec')}, qr/must be owner of BloomSampleTree "sec"/ ],
	[ q{SELECT bst_grant('sec', 'bob')}, qr/must be owner of BloomSampleTree "sec"/ ],
	[ q{SELECT bst_revoke('sec', 'alice')}, qr/must be owner of BloomSampleTree "sec"/ ],
	[ q{SELECT bst_set_owner('sec', 'bob')}, qr/must be owner of BloomSampleTree "sec"/ ],
	[ q{SELECT _bst_store_ids('sec', ARRAY[1]::bigint[], 99)}, qr/permission denied for function _bst_store_ids/ ],
	[ q{SELECT _bst_forget('sec')}, qr/permission denied for function _bst_forget/ ],
	[ q{SELECT bst_drop('pub')}, qr/must be owner of BloomSampleTree "pub"/ ],
	[ q{SET bloomsample.bst_memory_limit = '100GB'}, qr/permission denied to set parameter "bloomsample.bst_memory_limit"/ ],
	[ q{SET bloomsample.bst_shared_limit = '100GB'}, qr/permission denied to set parameter "bloomsample.bst_shared_limit"/ ],
);
for my $d (@denied)
{
	my ($sql, $re) = @$d;
	# the library loaded first: a setting of a library not loaded yet is a placeholder
	($out, $err) = as($node, 'bob', "DO \$\$ BEGIN PERFORM bloom_empty(64, 1); END \$\$; $sql");
	like($err, $re, "bob: $sql is refused");
	unlike("$out $err", qr/\b\d{4,}\b/, "bob: $sql shows no id");
}
is(as_ok($node, 'bob', 'SELECT string_agg(name, \',\' ORDER BY name) FROM bst_trees'),
	'bobs,pub', 'bob: bst_trees (granted to PUBLIC) lists the full trees, no pruned tree of others');
is(as_ok($node, 'bob', q{SELECT ids FROM bst_info('pub')}), '100000', 'bob uses a full tree (it reveals no data)');
is(as_ok($node, 'alice', q{SELECT count(*) FROM bst_trees WHERE name = 'susec'}), '0',
	'alice does not see the superuser\'s pruned tree either');

# ---------------------------------------------------------------------------
# carol, the grantee
# ---------------------------------------------------------------------------
($out, $err) = as($node, 'carol', $recon);
like($err, qr/permission denied for BloomSampleTree "sec"/, 'carol before the grant: refused');
as_ok($node, 'alice', q{SELECT bst_grant('sec', 'carol')});
is(as_ok($node, 'carol', $recon), $all_ids, 'carol, granted, reconstructs exactly the owner\'s ids');
is(as_ok($node, 'carol', q{SELECT count(*) = 20 AND bool_and(x IN (SELECT id FROM bst_reconstruct('sec', (SELECT q FROM allones)) id))
    FROM allones, bst_sample('sec', allones.q, 20) x}), 't', 'carol samples ids of the tree');
is(as_ok($node, 'carol', q{SELECT i.ids || ' ' || t.grantees::text FROM bst_info('sec') i, bst_trees t WHERE t.name = 'sec'}),
	'5000 {carol}', 'carol sees the tree in bst_info and bst_trees');
for my $sql (q{SELECT bst_extend('sec', ARRAY[1]::bigint[])}, q{SELECT bst_drop('sec')},
	q{SELECT bst_grant('sec', 'bob')})
{
	($out, $err) = as($node, 'carol', $sql);
	like($err, qr/must be owner of BloomSampleTree "sec"/, "carol: $sql is refused");
}
($out, $err) = as($node, 'carol', 'SELECT count(*) FROM bst_tree_ids');
like($err, qr/permission denied for table bst_tree_ids/, 'carol: the catalog tables stay private');
($out, $err) = as($node, 'bob', $recon);
like($err, qr/permission denied/, 'bob: still refused after carol\'s grant');

# members of the owner role have its privileges (as for tables)
$node->safe_psql('shop', 'CREATE ROLE dave LOGIN; GRANT alice TO dave');
is(as_ok($node, 'dave', $recon), $all_ids, 'dave, a member of alice, uses her tree');
$node->safe_psql('shop', 'REVOKE alice FROM dave');
($out, $err) = as($node, 'dave', $recon);
like($err, qr/permission denied/, 'no longer a member: refused');
$node->safe_psql('shop', 'DROP ROLE dave');

# a query in an open session: (stdout, stderr of this query only)
sub bq
{
	my ($session, $sql) = @_;
	$session->{stderr} = '';
	my $o = $session->query($sql);
	my $e = $session->{stderr};
	$e =~ s/background_psql: QUERY_SEPARATOR.*//s;
	return ($o, $e);
}

# ---------------------------------------------------------------------------
# a revoke reaches an open session at its next call
# ---------------------------------------------------------------------------
my $s = $node->background_psql('shop', on_error_stop => 0, extra_params => [ '-U', 'carol' ]);
is((bq($s, $recon))[0], $all_ids, 'open session of carol: warm tree');
is((bq($s, $recon))[0], $all_ids, 'open session of carol: warm tree, again');
as_ok($node, 'alice', q{SELECT bst_revoke('sec', 'carol')});
like((bq($s, $recon))[1], qr/permission denied for BloomSampleTree "sec"/, 'the revoke took effect at the next call');
as_ok($node, 'alice', q{SELECT bst_grant('sec', 'public')});
is((bq($s, $recon))[0], $all_ids, 'a grant to PUBLIC reaches the open session');
as_ok($node, 'alice', q{SELECT bst_revoke('sec', 'public')});
like((bq($s, $recon))[1], qr/permission denied/, 'and its revoke');
$s->quit;
as_ok($node, 'alice', q{SELECT bst_grant('sec', 'carol')});

# ---------------------------------------------------------------------------
# SET ROLE in one session: the cached tree is checked for the current role
# ---------------------------------------------------------------------------
$s = $node->background_psql('shop', on_error_stop => 0);
is((bq($s, "SET ROLE carol; $recon"))[0], $all_ids, 'superuser session as carol: allowed');
is((bq($s, $recon))[0], $all_ids, 'again (warm)');
like((bq($s, "SET ROLE bob; $recon"))[1], qr/permission denied for BloomSampleTree "sec"/, 'SET ROLE bob: the warm tree is refused');
is((bq($s, "SET ROLE carol; $recon"))[0], $all_ids, 'SET ROLE carol again: allowed');
# within one statement: one call site, the role changed between its calls
like((bq($s, q{SELECT v.i, set_config('role', v.r, false),
    (SELECT count(*) FROM allones a, bst_sample('sec', a.q, 2 + 0 * v.i))
    FROM (VALUES (1, 'carol'), (2, 'bob')) v(i, r)}))[1], qr/permission denied for BloomSampleTree "sec"/,
	'a role change between two calls of one call site is honoured');
bq($s, 'RESET ROLE');
$s->quit;

# ---------------------------------------------------------------------------
# pg_dump by alice, pg_restore into a fresh cluster: owners and grants kept
# ---------------------------------------------------------------------------
as_ok($node, 'alice', q{SELECT bst_grant('pub', 'public')});
my $catalog = q{SELECT string_agg(name || ' ' || owner || ' ' || grantees::text, ';' ORDER BY name) FROM bst_tree_catalog};
my $before = $node->safe_psql('shop', $catalog);
is($before, 'bobs bob {};pub alice {-};sec alice {carol};susec ' . $node->safe_psql('shop', 'SELECT current_user') . ' {}',
	'the catalog before the dump');
my $dump = $node->basedir . '/shop.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-U', 'alice', '-f', $dump, '-d', $node->connstr('shop') ],
	'alice (the extension\'s owner, no superuser) dumps her database');

my $fresh = PostgreSQL::Test::Cluster->new('bst_priv_restored');
$fresh->init;
$fresh->start;
# other oids for the same names
$fresh->safe_psql('postgres', q{
    CREATE ROLE filler1; CREATE ROLE filler2; CREATE ROLE filler3; CREATE ROLE filler4; CREATE ROLE filler5;
    CREATE ROLE carol LOGIN; CREATE ROLE bob LOGIN; CREATE ROLE alice LOGIN;
    CREATE DATABASE shop OWNER alice;
});
my $oids = q{SELECT string_agg(oid::text, ',' ORDER BY rolname) FROM pg_roles WHERE rolname IN ('alice', 'bob', 'carol')};
my @old_oids = split /,/, $node->safe_psql('postgres', $oids);
my @new_oids = split /,/, $fresh->safe_psql('postgres', $oids);
ok(!grep({ $old_oids[$_] eq $new_oids[$_] } 0 .. 2), 'the restored cluster gives alice, bob and carol other oids');
$fresh->command_ok([ 'pg_restore', '-d', $fresh->connstr('shop'), $dump ], 'pg_restore');
is($fresh->safe_psql('shop', $catalog), $before, 'owners and grants survive dump and restore');
is(as_ok($fresh, 'carol', $recon), $all_ids, 'restored: carol reconstructs the tree');
($out, $err) = as($fresh, 'bob', $recon);
like($err, qr/permission denied for BloomSampleTree "sec"/, 'restored: bob is refused');
($out, $err) = as($fresh, 'bob', q{SELECT bst_drop('sec')});
like($err, qr/must be owner/, 'restored: bob cannot drop');
as_ok($fresh, 'alice', q{SELECT bst_extend('sec', ARRAY[1000004]::bigint[]); SELECT bst_drop('pub')});
is(as_ok($fresh, 'carol', q{SELECT ids FROM bst_info('sec')}), '5001', 'restored: alice extends, carol sees it');
$fresh->stop;

# ---------------------------------------------------------------------------
# ownership changes hands as for ALTER TABLE ... OWNER TO
# ---------------------------------------------------------------------------
($out, $err) = as($node, 'bob', q{SELECT bst_set_owner('sec', 'bob')});
like($err, qr/must be owner of BloomSampleTree "sec"/, 'bob cannot take alice\'s tree');
($out, $err) = as($node, 'alice', q{SELECT bst_set_owner('sec', 'bob')});
like($err, qr/must be member of role "bob"/, 'alice cannot give her tree to a role she is not a member of');
(undef, $out, $err) = $node->psql('shop', q{SELECT bst_set_owner('sec', '-')});
like($err, qr/role with OID 0 does not exist/, 'a tree cannot be given to no role');
($out, $err) = as($node, 'alice', q{SELECT bst_grant('sec', '999999')});
like($err, qr/role with OID 999999 does not exist/, 'nor granted to a role oid that does not exist');
$node->safe_psql('shop', q{SELECT bst_set_owner('sec', 'bob')});
is(as_ok($node, 'bob', $recon), $all_ids, 'given to bob by a superuser: bob uses it');
($out, $err) = as($node, 'alice', $recon);
like($err, qr/permission denied for BloomSampleTree "sec"/, 'and alice no longer does');
is(as_ok($node, 'carol', $recon), $all_ids, 'the grantees stay');
$node->safe_psql('shop', q{SELECT bst_set_owner('sec', 'alice')});

# ---------------------------------------------------------------------------
# the owner drops her trees
# ---------------------------------------------------------------------------
($out, $err) = as($node, 'alice', q{SELECT bst_drop('sec'); SELECT bst_drop('pub')});
is($err, '', 'alice drops her trees');
is($node->safe_psql('shop', 'SELECT count(*) FROM bst_tree_ids WHERE name = \'sec\''), '0', 'their ids are gone');

$node->stop;
done_testing();
