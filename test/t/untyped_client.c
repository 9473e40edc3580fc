/*
 * test/t/untyped_client.c
 *    A minimal libpq client for test/t/012_untyped_params.pl: runs one query
 *    through the extended protocol the way drivers do, with its parameters
 *    sent as text and their types left to the server (paramTypes NULL: the
 *    parameters are `unknown`, as JDBC's stringtype=unspecified or a driver
 *    without type information sends them) or declared text or varchar (as
 *    JDBC's setString sends them).
 *
 *    untyped_client CONNINFO MODE SQL [PARAM ...]
 *
 *    MODE: exec (PQexecParams, types unspecified), prepare (PQprepare with
 *    types unspecified, then PQexecPrepared), text, varchar (PQexecParams,
 *    every parameter of that type).  Prints the first column of every row,
 *    one per line, or "ERROR <sqlstate> <message>" and exits 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libpq-fe.h"

#define TEXTOID		25
#define VARCHAROID	1043

int
main(int argc, char **argv)
{
	PGconn	   *conn;
	PGresult   *res;
	const char *mode;
	const char *sql;
	int			nparams;
	const char *const *values;
	Oid		   *types = NULL;

	if (argc < 4)
	{
		fprintf(stderr, "usage: %s CONNINFO MODE SQL [PARAM ...]\n", argv[0]);
		return 1;
	}
	mode = argv[2];
	sql = argv[3];
	nparams = argc - 4;
	values = (const char *const *) (argv + 4);
	conn = PQconnectdb(argv[1]);
	if (PQstatus(conn) != CONNECTION_OK)
	{
		fprintf(stderr, "connection failed: %s", PQerrorMessage(conn));
		return 1;
	}
	if (strcmp(mode, "text") == 0 || strcmp(mode, "varchar") == 0)
	{
		types = calloc(nparams > 0 ? nparams : 1, sizeof(Oid));
		for (int i = 0; i < nparams; i++)
			types[i] = strcmp(mode, "text") == 0 ? TEXTOID : VARCHAROID;
	}
	if (strcmp(mode, "prepare") == 0)
	{
		res = PQprepare(conn, "q", sql, nparams, NULL);
		if (PQresultStatus(res) == PGRES_COMMAND_OK)
		{
			PQclear(res);
			res = PQexecPrepared(conn, "q", nparams, values, NULL, NULL, 0);
		}
	}
	else
		res = PQexecParams(conn, sql, nparams, types, values, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK && PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);

		printf("ERROR %s %s", state ? state : "?????", PQresultErrorMessage(res));
		PQclear(res);
		PQfinish(conn);
		return 2;
	}
	for (int r = 0; r < PQntuples(res); r++)
		printf("%s\n", PQgetisnull(res, r, 0) ? "NULL" : PQgetvalue(res, r, 0));
	PQclear(res);
	PQfinish(conn);
	free(types);
	return 0;
}
