/*
 * filter_text.c
 *    Parsing helpers of the bloomfilter, bloomtree, countingbloom and
 *    cuckoofilter text forms (filter_text.h).
 */
#include "postgres.h"

#include "filter_text.h"

/* ft_shown: the input, shortened to 64 characters for error messages */
const char *
ft_shown(const char *str)
{
	if (strlen(str) <= 64)
		return str;
	return psprintf("%.60s...", str);
}

/* ft_syntax_error: invalid input syntax for in->type, with a detail */
void
ft_syntax_error(const FtInput *in, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s: \"%s\"", in->type, ft_shown(in->str)),
			 errdetail("%s", detail),
			 errhint("The format is %s", in->format)));
}

/* out of [lo, hi]: a syntax error, without the HINT if in->range_without_hint */
static void
ft_out_of_range(const FtInput *in, const char *name, int64 val, int64 lo, int64 hi)
{
	const char *detail = psprintf("%s = " INT64_FORMAT " is out of range [" INT64_FORMAT
								  ", " INT64_FORMAT "].", name, val, lo, hi);

	if (!in->range_without_hint)
		ft_syntax_error(in, detail);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s: \"%s\"", in->type, ft_shown(in->str)),
			 errdetail("%s", detail)));
}

/*
 * ft_parse_int: an optionally signed decimal integer of at most 12 digits at
 * *pp, in [lo, hi] (name: the field, for messages); advances *pp past it.
 */
int64
ft_parse_int(const FtInput *in, const char **pp, const char *name, int64 lo, int64 hi)
{
	const char *p = *pp;
	bool		neg = false;
	int64		val = 0;
	int			digits = 0;

	if (*p == '-')
	{
		neg = true;
		p++;
	}
	while (*p >= '0' && *p <= '9')
	{
		if (++digits > 12)
			ft_syntax_error(in, psprintf("Value of %s is out of range.", name));
		val = val * 10 + (*p++ - '0');
	}
	if (digits == 0)
		ft_syntax_error(in, psprintf("Expected an integer for %s at position %d.", name,
									 (int) (p - in->str) + 1));
	if (neg)
		val = -val;
	if (val < lo || val > hi)
		ft_out_of_range(in, name, val, lo, hi);
	*pp = p;
	return val;
}

/*
 * ft_parse_field: "<name>=<integer>" followed by term at *pp, the integer in
 * [lo, hi] (at most 12 digits); advances *pp past the terminator.
 */
int64
ft_parse_field(const FtInput *in, const char **pp, const char *name, char term,
			   int64 lo, int64 hi)
{
	const char *p = *pp;
	size_t		nlen = strlen(name);
	int64		val;

	if (strncmp(p, name, nlen) != 0 || p[nlen] != '=')
		ft_syntax_error(in, psprintf("Expected \"%s=\" at position %d.", name,
									 (int) (p - in->str) + 1));
	p += nlen + 1;
	/* no digit (after an optional sign): said as a missing value of the field */
	if (!(p[*p == '-'] >= '0' && p[*p == '-'] <= '9'))
		ft_syntax_error(in, psprintf("Expected an integer after \"%s=\".", name));
	val = ft_parse_int(in, &p, name, lo, hi);
	if (*p != term)
		ft_syntax_error(in, psprintf("Expected \"%c\" after the value of %s.", term, name));
	*pp = p + 1;
	return val;
}

/* ft_skip_space: p past spaces, tabs and newlines */
const char *
ft_skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return p;
}

/* ft_expect_end: error unless only white space is left at p */
void
ft_expect_end(const FtInput *in, const char *p)
{
	if (*ft_skip_space(p) != '\0')
		ft_syntax_error(in, "Unexpected characters after the payload.");
}
