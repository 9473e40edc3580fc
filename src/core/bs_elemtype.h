/*
 * bs_elemtype.h
 *    Element types recorded in a value, and the readings of a text element,
 *    PostgreSQL-independent.
 *
 * Every element-taking function is overloaded on bigint, text, bytea and
 * uuid; PostgreSQL resolves an untyped literal or an untyped parameter to the
 * text overload, and drivers send text parameters for numbers.  So that such
 * a call never hashes '4242' as a string against a value built from the
 * integer 4242, a value records which element types it holds (BS_ELEM_*) and
 * a text element is read by this rule, the same for adding and probing:
 *
 *   readings R: always BS_ELEM_BYTES (the string itself); BS_ELEM_INT too
 *               when the text is an integer in bigint's input syntax;
 *               BS_ELEM_UUID too when it is a uuid in uuid's input syntax
 *               (no text is both);
 *   recorded  T: the types the value holds (BS_ELEM_ALL for a value that
 *               records none: one stored before bloomsample 1.2);
 *   used      U = R & T, or BS_ELEM_BYTES when that is empty.
 *
 * A value of integers reads '4242' as 4242, a value of strings as '4242', a
 * value that records nothing as both (membership: either; adding: both, so
 * a later probe of either type finds it).  Typed elements are not read:
 * their hashing (docs/hashing.md) is unchanged.
 */
#ifndef BS_ELEMTYPE_H
#define BS_ELEMTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BS_ELEM_INT		0x1		/* bigint (and smaller integers) */
#define BS_ELEM_BYTES	0x2		/* text, varchar, bytea */
#define BS_ELEM_UUID	0x4		/* uuid */
#define BS_ELEM_ALL		0x7

/* the readings of a text element */
typedef struct BsTextReadings
{
	unsigned	mask;			/* BS_ELEM_BYTES, with INT or UUID if it parses */
	int64_t		i;				/* the integer, when mask has BS_ELEM_INT */
	uint8_t		uuid[16];		/* the uuid, when mask has BS_ELEM_UUID */
} BsTextReadings;

/*
 * bs_text_as_int64: true and *out when s[0..len) is an integer in the syntax
 * of PostgreSQL 15's int8in (leading and trailing white space, an optional
 * sign, decimal digits) within bigint's range; false otherwise.
 */
extern bool bs_text_as_int64(const char *s, size_t len, int64_t *out);

/*
 * bs_text_as_uuid: true and out[16] when s[0..len) is a uuid in the syntax of
 * uuid_in (32 hex digits, optionally in braces, a hyphen allowed after any
 * group of four digits); false otherwise.
 */
extern bool bs_text_as_uuid(const char *s, size_t len, uint8_t out[16]);

/*
 * bs_hex_digit: the value (0 to 15) of the hex digit c, either case; -1 when
 * c is none.  Used by the uuid reading here and by the text forms' hex fields
 * (src/filter_text.h).
 */
extern int	bs_hex_digit(char c);

/* bs_text_readings: the readings of the text s[0..len) into *r */
extern void bs_text_readings(const char *s, size_t len, BsTextReadings *r);

/*
 * bs_text_needs_readings: whether a text element must be parsed at all for
 * a value recording `recorded`: not when the value can hold only strings
 * (then every text is read as its bytes)
 */
static inline bool
bs_text_needs_readings(unsigned recorded)
{
	return (recorded & (BS_ELEM_INT | BS_ELEM_UUID)) != 0;
}

/* bs_text_used: the readings used (U above) for readings R, recorded T */
static inline unsigned
bs_text_used(unsigned readings, unsigned recorded)
{
	unsigned	u = readings & recorded;

	return u ? u : BS_ELEM_BYTES;
}

/* bs_elem_count: how many readings a mask holds */
static inline int
bs_elem_count(unsigned mask)
{
	return __builtin_popcount(mask & BS_ELEM_ALL);
}

/* the name of one element type, for messages */
extern const char *bs_elem_name(unsigned one);

#endif							/* BS_ELEMTYPE_H */
