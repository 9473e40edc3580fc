/*
 * bloofi_validate.c
 *    amvalidate for Bloofi operator classes.
 *
 * A bloofi operator class indexes bloomfilter values and holds only search
 * operators of strategy 1 with the signature (bloomfilter, elem) -> boolean,
 * elem one of bigint, integer, smallint, text, varchar, bytea, uuid (the
 * element types the scan can hash); it has no support functions.
 *
 * Design notes: docs/bloofi.md.
 */
#include "postgres.h"

#include "access/amvalidate.h"
#include "access/htup_details.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "bloofi.h"

static bool
bloofi_elem_type_ok(Oid t)
{
	return t == INT8OID || t == INT4OID || t == INT2OID || t == TEXTOID ||
		t == VARCHAROID || t == BYTEAOID || t == UUIDOID;
}

/* the extension's bloomfilter type, whatever schema it is in */
static bool
bloofi_is_bloomfilter_type(Oid t)
{
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(t));
	bool		ok;

	if (!HeapTupleIsValid(tup))
		return false;
	ok = strcmp(NameStr(((Form_pg_type) GETSTRUCT(tup))->typname), "bloomfilter") == 0;
	ReleaseSysCache(tup);
	return ok;
}

bool
bloofi_validate(Oid opclassoid)
{
	bool		result = true;
	HeapTuple	classtup;
	Form_pg_opclass classform;
	Oid			opfamilyoid;
	Oid			opcintype;
	char	   *opclassname;
	HeapTuple	familytup;
	Form_pg_opfamily familyform;
	char	   *opfamilyname;
	CatCList   *proclist,
			   *oprlist;
	int			nops_in_class = 0;

	classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	if (!HeapTupleIsValid(classtup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	classform = (Form_pg_opclass) GETSTRUCT(classtup);
	opfamilyoid = classform->opcfamily;
	opcintype = classform->opcintype;
	opclassname = NameStr(classform->opcname);

	familytup = SearchSysCache1(OPFAMILYOID, ObjectIdGetDatum(opfamilyoid));
	if (!HeapTupleIsValid(familytup))
		elog(ERROR, "cache lookup failed for operator family %u", opfamilyoid);
	familyform = (Form_pg_opfamily) GETSTRUCT(familytup);
	opfamilyname = NameStr(familyform->opfname);

	if (!bloofi_is_bloomfilter_type(opcintype))
	{
		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("bloofi operator class \"%s\" indexes type %s, expected bloomfilter",
						opclassname, format_type_be(opcintype))));
		result = false;
	}

	proclist = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(opfamilyoid));
	for (int i = 0; i < proclist->n_members; i++)
	{
		Form_pg_amproc procform = (Form_pg_amproc) GETSTRUCT(&proclist->members[i]->tuple);

		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("bloofi operator family \"%s\" contains function %s with invalid support number %d",
						opfamilyname, format_procedure(procform->amproc),
						procform->amprocnum),
				 errdetail("Bloofi operator classes have no support functions.")));
		result = false;
	}

	oprlist = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamilyoid));
	for (int i = 0; i < oprlist->n_members; i++)
	{
		Form_pg_amop oprform = (Form_pg_amop) GETSTRUCT(&oprlist->members[i]->tuple);

		if (oprform->amopstrategy != 1)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("bloofi operator family \"%s\" contains operator %s with invalid strategy number %d",
							opfamilyname, format_operator(oprform->amopopr),
							oprform->amopstrategy)));
			result = false;
		}
		if (oprform->amoppurpose != AMOP_SEARCH || OidIsValid(oprform->amopsortfamily))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("bloofi operator family \"%s\" contains invalid ORDER BY specification for operator %s",
							opfamilyname, format_operator(oprform->amopopr))));
			result = false;
		}
		if (oprform->amoplefttype != opcintype || !bloofi_elem_type_ok(oprform->amoprighttype) ||
			!check_amop_signature(oprform->amopopr, BOOLOID,
								  oprform->amoplefttype, oprform->amoprighttype))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("bloofi operator family \"%s\" contains operator %s with wrong signature",
							opfamilyname, format_operator(oprform->amopopr)),
					 errdetail("Expected (bloomfilter, bigint|integer|smallint|text|varchar|bytea|uuid) returning boolean.")));
			result = false;
		}
		if (oprform->amoplefttype == opcintype)
			nops_in_class++;
	}
	if (nops_in_class == 0)
	{
		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("bloofi operator class \"%s\" has no search operator",
						opclassname)));
		result = false;
	}

	ReleaseCatCacheList(proclist);
	ReleaseCatCacheList(oprlist);
	ReleaseSysCache(familytup);
	ReleaseSysCache(classtup);
	return result;
}
