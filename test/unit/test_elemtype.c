/*
 * test_elemtype.c
 *    Unit tests of the readings of a text element (src/core/bs_elemtype.h):
 *    bigint's input syntax against the C library's strtoll on every form the
 *    server accepts (white space, sign, leading zeros, the range's ends, one
 *    past them), uuid's input syntax against bytes formatted in each accepted
 *    form, rejected forms of both, and the rule that picks the readings used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bs_elemtype.h"
#include "unit.h"

static unsigned long long rng_state = 32;

static bool
as_int(const char *s, int64_t *out)
{
	return bs_text_as_int64(s, strlen(s), out);
}

/* the oracle: strtoll over the whole string (C locale white space), in range */
static bool
oracle_int(const char *s, int64_t *out)
{
	char	   *end;
	long long	v;
	const char *p = s;

	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' || *p == '\f')
		p++;
	/* strtoll also takes "0x" and a second sign; bigint's syntax does not */
	if (*p == '+' || *p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno == ERANGE)
		return false;
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r' || *end == '\v' || *end == '\f')
		end++;
	if (*end != '\0')
		return false;
	*out = v;
	return true;
}

static void
check_int(const char *s)
{
	int64_t		got = 0,
				want = 0;
	bool		g = as_int(s, &got),
				w = oracle_int(s, &want);

	CHECK(g == w && (!g || got == want), "'%s': got %d/%lld, want %d/%lld", s, g,
		  (long long) got, w, (long long) want);
}

static void
test_int64(void)
{
	static const char *const fixed[] = {
		"0", "-0", "+0", "42", " 42", "42 ", "\t42\n", "+42", "-42", "0042", "-0042",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808",
		"-9223372036854775809", "99999999999999999999", "000000000000000000000000001",
		"", " ", "+", "-", "--1", "+-1", "1 2", "1a", "a1", "0x10", "1e3", "1.0", "1_000",
		"4242", " +4242 "};
	char		buf[64];

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		check_int(fixed[i]);
	for (int i = 0; i < 20000; i++)
	{
		unsigned long long r = unit_splitmix64(&rng_state);
		long long	v = (long long) r >> (r % 64);

		snprintf(buf, sizeof(buf), "%s%lld%s", (r & 1) ? " " : "", v, (r & 2) ? "\t" : "");
		check_int(buf);
	}
	{
		int64_t		v;

		CHECK(as_int("-9223372036854775808", &v) && v == INT64_MIN, "INT64_MIN");
		CHECK(as_int("9223372036854775807", &v) && v == INT64_MAX, "INT64_MAX");
	}
}

static void
test_uuid(void)
{
	uint8_t		want[16],
				got[16];
	char		plain[40],
				hyph[40],
				brace[42],
				upper[40];

	for (int i = 0; i < 2000; i++)
	{
		char	   *p = plain;

		for (int b = 0; b < 16; b++)
			want[b] = (uint8_t) unit_splitmix64(&rng_state);
		for (int b = 0; b < 16; b++)
			p += sprintf(p, "%02x", want[b]);
		snprintf(hyph, sizeof(hyph), "%.8s-%.4s-%.4s-%.4s-%.12s", plain, plain + 8,
				 plain + 12, plain + 16, plain + 20);
		snprintf(brace, sizeof(brace), "{%s}", hyph);
		for (int c = 0; c < 37; c++)
			upper[c] = (hyph[c] >= 'a' && hyph[c] <= 'f') ? (char) (hyph[c] - 32) : hyph[c];
		upper[36] = '\0';
		CHECK(bs_text_as_uuid(plain, 32, got) && memcmp(got, want, 16) == 0, "%s", plain);
		CHECK(bs_text_as_uuid(hyph, 36, got) && memcmp(got, want, 16) == 0, "%s", hyph);
		CHECK(bs_text_as_uuid(brace, 38, got) && memcmp(got, want, 16) == 0, "%s", brace);
		CHECK(bs_text_as_uuid(upper, 36, got) && memcmp(got, want, 16) == 0, "%s", upper);
		/* not a uuid: one digit short, one long, a brace unmatched, a bad digit */
		CHECK(!bs_text_as_uuid(plain, 31, got), "31 digits");
		CHECK(!bs_text_as_uuid(brace, 37, got), "no closing brace");
		CHECK(!bs_text_as_uuid(brace + 1, 37, got), "no opening brace");
		hyph[5] = 'g';
		CHECK(!bs_text_as_uuid(hyph, 36, got), "bad digit");
	}
	/* uuid_in's hyphens: after any group of four digits, never first or last */
	CHECK(bs_text_as_uuid("a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11", 39, got), "hyphen every 4");
	CHECK(!bs_text_as_uuid("-a0eebc999c0b4ef8bb6d6bb9bd380a11", 33, got), "leading hyphen");
	CHECK(!bs_text_as_uuid("a0eebc999c0b4ef8bb6d6bb9bd380a11-", 33, got), "trailing hyphen");
	CHECK(!bs_text_as_uuid("a0e-ebc999c0b4ef8bb6d6bb9bd380a11", 33, got), "hyphen after 3");
	CHECK(!bs_text_as_uuid(" a0eebc999c0b4ef8bb6d6bb9bd380a11", 33, got), "white space");
}

static void
test_rule(void)
{
	BsTextReadings r;

	bs_text_readings("4242", 4, &r);
	CHECK(r.mask == (BS_ELEM_BYTES | BS_ELEM_INT) && r.i == 4242, "4242: %u", r.mask);
	bs_text_readings("abc", 3, &r);
	CHECK(r.mask == BS_ELEM_BYTES, "abc: %u", r.mask);
	bs_text_readings("a0eebc999c0b4ef8bb6d6bb9bd380a11", 32, &r);
	CHECK(r.mask == (BS_ELEM_BYTES | BS_ELEM_UUID) && r.uuid[0] == 0xa0, "uuid: %u", r.mask);
	/* a filter of integers reads a number as the number, else the string */
	CHECK(bs_text_used(BS_ELEM_BYTES | BS_ELEM_INT, BS_ELEM_INT) == BS_ELEM_INT, "int");
	CHECK(bs_text_used(BS_ELEM_BYTES, BS_ELEM_INT) == BS_ELEM_BYTES, "int, string");
	/* a filter of strings: always the string */
	CHECK(bs_text_used(BS_ELEM_BYTES | BS_ELEM_INT, BS_ELEM_BYTES) == BS_ELEM_BYTES, "str");
	/* an empty filter recording its types holds no integers: the string */
	CHECK(bs_text_used(BS_ELEM_BYTES | BS_ELEM_INT, 0) == BS_ELEM_BYTES, "empty");
	/* a filter recording none (BS_ELEM_ALL) or both: every reading */
	CHECK(bs_text_used(BS_ELEM_BYTES | BS_ELEM_INT, BS_ELEM_ALL) == (BS_ELEM_BYTES | BS_ELEM_INT),
		  "untyped");
	CHECK(bs_text_used(BS_ELEM_BYTES | BS_ELEM_UUID, BS_ELEM_BYTES | BS_ELEM_UUID) ==
		  (BS_ELEM_BYTES | BS_ELEM_UUID), "mixed");
	CHECK(!bs_text_needs_readings(BS_ELEM_BYTES) && bs_text_needs_readings(BS_ELEM_ALL),
		  "parsing needed only with integers or uuids");
}

int
main(void)
{
	test_int64();
	test_uuid();
	test_rule();
	return UNIT_DONE();
}
