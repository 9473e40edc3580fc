/*
 * bs_elemtype.c
 *    Readings of a text element (bs_elemtype.h): bigint's and uuid's input
 *    syntaxes, without PostgreSQL (no error on a text that is neither).
 */
#include "bs_elemtype.h"

#include <string.h>

static bool
is_space(char c)
{
	/* the characters isspace() accepts in the C locale, as int8in uses */
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* bs_hex_digit: see bs_elemtype.h */
int
bs_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool
bs_text_as_int64(const char *s, size_t len, int64_t *out)
{
	size_t		i = 0;
	bool		neg = false;
	uint64_t	acc = 0;
	size_t		digits = 0;

	while (i < len && is_space(s[i]))
		i++;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
	{
		uint64_t	d = (uint64_t) (s[i] - '0');

		/* acc * 10 + d must stay <= 2^63 (the magnitude of INT64_MIN) */
		if (acc > (UINT64_C(9223372036854775808) - d) / 10)
			return false;
		acc = acc * 10 + d;
	}
	while (i < len && is_space(s[i]))
		i++;
	if (digits == 0 || i != len)
		return false;
	if (neg)
		*out = acc == UINT64_C(9223372036854775808) ? INT64_MIN : -(int64_t) acc;
	else
	{
		if (acc > (uint64_t) INT64_MAX)
			return false;
		*out = (int64_t) acc;
	}
	return true;
}

bool
bs_text_as_uuid(const char *s, size_t len, uint8_t out[16])
{
	size_t		i = 0;
	bool		braces = false;

	if (len > 0 && s[0] == '{')
	{
		braces = true;
		i = 1;
	}
	for (int b = 0; b < 16; b++)
	{
		int			hi,
					lo;

		if (i + 2 > len || (hi = bs_hex_digit(s[i])) < 0 || (lo = bs_hex_digit(s[i + 1])) < 0)
			return false;
		out[b] = (uint8_t) (hi << 4 | lo);
		i += 2;
		/* uuid_in: a hyphen may follow every second byte but the last */
		if (i < len && s[i] == '-' && (b % 2) == 1 && b < 15)
			i++;
	}
	if (braces)
	{
		if (i >= len || s[i] != '}')
			return false;
		i++;
	}
	return i == len;
}

void
bs_text_readings(const char *s, size_t len, BsTextReadings *r)
{
	r->mask = BS_ELEM_BYTES;
	if (bs_text_as_int64(s, len, &r->i))
		r->mask |= BS_ELEM_INT;
	else if (bs_text_as_uuid(s, len, r->uuid))
		r->mask |= BS_ELEM_UUID;
}

const char *
bs_elem_name(unsigned one)
{
	switch (one)
	{
		case BS_ELEM_INT:
			return "bigint";
		case BS_ELEM_BYTES:
			return "text";
		case BS_ELEM_UUID:
			return "uuid";
	}
	return "?";
}
