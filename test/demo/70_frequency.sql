-- test/demo/70_frequency.sql -- how often, not only whether: the most
-- depended-upon packages of each Debian section, as heavy hitters of the edge
-- table (topk_agg: a Count-Min sketch and its k current candidates), next to
-- the exact GROUP BY ... ORDER BY count(*) DESC LIMIT 5.  Then the sections'
-- top-k values merged into one (topk_union_agg, as partial states of a
-- parallel plan or of shards would be), next to the exact top 5 overall.

-- one row per edge: the section of the depending package, the name of the dependency
CREATE TEMP TABLE dep_by_section AS
SELECT s.section, d.name AS dep
FROM pkg_dep e JOIN pkg_section s ON s.id = e.pkg_id JOIN pkg d ON d.id = e.dep_id;

CREATE TEMP TABLE section_top AS
SELECT section, count(*) AS edges, topk_agg(dep, 5) AS top
FROM dep_by_section GROUP BY section;

-- the six sections with most edges: the sketch's top 5 and the exact top 5
WITH exact AS (
    SELECT section, (array_agg(dep ORDER BY n DESC, dep))[1:5] AS items
    FROM (SELECT section, dep, count(*) AS n FROM dep_by_section GROUP BY section, dep) q
    GROUP BY section),
approx AS (
    SELECT section, array_agg(i.item ORDER BY i.estimate DESC, i.item) AS items
    FROM section_top, topk_items(top) i GROUP BY section)
SELECT t.section, t.edges, a.items AS topk_agg, e.items AS exact_group_by,
       cardinality(ARRAY(SELECT unnest(a.items) INTERSECT SELECT unnest(e.items))) AS in_both
FROM section_top t JOIN approx a USING (section) JOIN exact e USING (section)
ORDER BY t.edges DESC LIMIT 6;

-- all sections merged: the estimates never below the exact counts
WITH merged AS (SELECT topk_union_agg(top) AS top FROM section_top),
exact AS (SELECT dep, count(*) AS n FROM dep_by_section GROUP BY dep)
SELECT i.item AS package, i.estimate, e.n AS exact_count, i.estimate >= e.n AS never_below
FROM merged, topk_items(merged.top) i JOIN exact e ON e.dep = i.item
ORDER BY i.estimate DESC, i.item;

SELECT dep AS package, count(*) AS exact_count
FROM dep_by_section GROUP BY dep ORDER BY count(*) DESC, dep LIMIT 5;

DROP TABLE section_top;
DROP TABLE dep_by_section;
