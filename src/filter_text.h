/*
 * filter_text.h
 *    Parsing helpers shared by the text input functions of bloomfilter,
 *    bloomtree, countingbloom and cuckoofilter ("name=<integer>," fields,
 *    integers, hex digits, shortened input for messages).  Errors are
 *    ERRCODE_INVALID_TEXT_REPRESENTATION naming the type, the input and the
 *    expected format.
 */
#ifndef FILTER_TEXT_H
#define FILTER_TEXT_H

#include "postgres.h"
#include "pg_compat.h"
#include "bs_elemtype.h"		/* bs_hex_digit: the hex fields */

typedef struct FtInput
{
	const char *str;			/* the whole input */
	const char *type;			/* type name for messages */
	const char *format;			/* the format, for the HINT "The format is <format>"
								 * (with its final punctuation) */
	bool		range_without_hint; /* out-of-range values: no HINT */
} FtInput;

extern const char *ft_shown(const char *str);
extern void ft_syntax_error(const FtInput *in, const char *detail) pg_attribute_noreturn();
extern int64 ft_parse_field(const FtInput *in, const char **pp, const char *name,
							char term, int64 lo, int64 hi);
extern int64 ft_parse_int(const FtInput *in, const char **pp, const char *name,
						  int64 lo, int64 hi);
extern const char *ft_skip_space(const char *p);
extern void ft_expect_end(const FtInput *in, const char *p);

#endif							/* FILTER_TEXT_H */
