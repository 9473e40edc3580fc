/*
 * bloomfilter_memory.c
 *    The memory limit of one call on a value of any of the extension's six
 *    types (bloomfilter, bloomtree, countingbloom, cuckoofilter, countmin,
 *    topk), the input rule built on it, and the interruptible bulk helpers
 *    behind them.
 *
 * A value's work is proportional to its m, not to its stored size: a 36-byte
 * bloomtree decodes to 256 MiB and prints as 512 MiB of hex.  So every call
 * that allocates a bit array, a text or a binary form first adds up what it
 * will allocate (the detoasted arguments are not counted: they are the
 * values' own size) and refuses with SQLSTATE 54000, naming the bytes, when
 * that exceeds bloomsample.max_value_memory, a PGC_SUSET setting (512 MB by
 * default: twice the largest value either type stores, 2^31 bits = 256 MiB,
 * so every value can be built, read and combined once with another; printing
 * or re-coding the largest ones needs a superuser to raise it).
 *
 * The same holds for the other four types: their values are their own size,
 * but a 27-byte text can declare a 128 MiB countmin.  So every input function
 * (text and binary) of every type applies one rule, bf_input_check, once it
 * has parsed a header and before it allocates anything of the declared size:
 * the input must be long enough to hold what the header declares, and the
 * call's allocation must be within the limit.
 *
 * Long loops over such buffers check for interrupts at least every mebibyte:
 * the core's bit operations and BloomTree coder through their hooks
 * (bs_interrupt_hook, bltree_interrupt_hook, set here at load time), zeroing,
 * copying and comparing through the chunked helpers below.
 */
#include "postgres.h"

#include <limits.h>

#include "common/hashfn.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "bloomfilter.h"
#include "bltree.h"

/* bytes handled between two interrupt checks: about a millisecond */
#define BF_CHUNK_BYTES	((Size) 8 * BS_POLL_WORDS)

static int	bf_max_value_memory_mb = 512;

static void
check_interrupts_hook(void)
{
	CHECK_FOR_INTERRUPTS();
}

/*
 * bf_init_value_memory: define bloomsample.max_value_memory and point the
 * core's interrupt hooks at CHECK_FOR_INTERRUPTS; from _PG_init.
 */
void
bf_init_value_memory(void)
{
	bs_interrupt_hook = check_interrupts_hook;
	bltree_interrupt_hook = check_interrupts_hook;
	DefineCustomIntVariable("bloomsample.max_value_memory",
							"Most memory one call of a bloomsample function may allocate for a value's array and its text or binary forms.",
							"A call that would need more fails with SQLSTATE 54000 before allocating. Only superusers can change it.",
							&bf_max_value_memory_mb, 512, 1, INT_MAX / 2,
							PGC_SUSET, GUC_UNIT_MB, NULL, NULL, NULL);
}

/*
 * bf_value_memory_check: error (ERRCODE_PROGRAM_LIMIT_EXCEEDED) when `need`
 * bytes exceed bloomsample.max_value_memory; 'what' names the operation
 * ("bloomtree output").  Call it with a call's total before allocating.
 */
void
bf_value_memory_check(uint64 need, const char *what)
{
	uint64		limit = (uint64) bf_max_value_memory_mb * 1024 * 1024;

	if (need > limit)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s would need " UINT64_FORMAT " bytes, more than bloomsample.max_value_memory (%d MB)",
						what, need, bf_max_value_memory_mb),
				 errdetail("The memory a call takes grows with the filters' sizes m, not with the stored size of its arguments."),
				 errhint("A superuser can raise bloomsample.max_value_memory.")));
}

/*
 * bf_input_check: the rule of every input function of every type, called
 * once a header is parsed and before anything of its declared size is
 * allocated.  `have` bytes of input remain for a payload that needs `need`
 * bytes (exactly, when `exact`; at least, for a text form whose fields vary
 * in length): otherwise the error is `bad_errcode` (22P02 for text, 22P03
 * for binary), so a short input declaring a huge value is refused without
 * allocating it.  Then the call's total allocation `alloc` must be within
 * bloomsample.max_value_memory (54000, bf_value_memory_check).  'what' names
 * the call ("countmin input").
 */
void
bf_input_check(const char *what, uint64 need, uint64 have, bool exact, uint64 alloc,
			   int bad_errcode)
{
	if (exact ? have != need : have < need)
		ereport(ERROR,
				(errcode(bad_errcode),
				 errmsg("%s: the declared size needs %s" UINT64_FORMAT " bytes of input, found " UINT64_FORMAT,
						what, exact ? "" : "at least ", need, have),
				 errdetail("A header's sizes must match the payload that follows it.")));
	bf_value_memory_check(alloc, what);
}

/*
 * bf_copy_value: a copy of `size` bytes at src in memory context cxt,
 * within the limit and copied interruptibly (aggregate states, serialized
 * forms, values copied to be modified)
 */
void *
bf_copy_value(MemoryContext cxt, const void *src, uint64 size, const char *what)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	void	   *p = bf_palloc_value(size, false, what);

	MemoryContextSwitchTo(old);
	bf_copy_interruptible(p, src, (Size) size);
	return p;
}

/* bf_zero_interruptible: memset(p, 0, n), checking for interrupts every chunk */
void
bf_zero_interruptible(void *p, Size n)
{
	for (Size off = 0; off < n; off += BF_CHUNK_BYTES)
	{
		memset((char *) p + off, 0, Min(BF_CHUNK_BYTES, n - off));
		CHECK_FOR_INTERRUPTS();
	}
}

/* bf_copy_interruptible: memcpy(dst, src, n), checking for interrupts every chunk */
void
bf_copy_interruptible(void *dst, const void *src, Size n)
{
	for (Size off = 0; off < n; off += BF_CHUNK_BYTES)
	{
		memcpy((char *) dst + off, (const char *) src + off, Min(BF_CHUNK_BYTES, n - off));
		CHECK_FOR_INTERRUPTS();
	}
}

/* bf_equal_interruptible: memcmp(a, b, n) == 0, checking for interrupts every chunk */
bool
bf_equal_interruptible(const void *a, const void *b, Size n)
{
	for (Size off = 0; off < n; off += BF_CHUNK_BYTES)
	{
		if (memcmp((const char *) a + off, (const char *) b + off,
				   Min(BF_CHUNK_BYTES, n - off)) != 0)
			return false;
		CHECK_FOR_INTERRUPTS();
	}
	return true;
}

#define BF_ROT(x, k)	(((x) << (k)) | ((x) >> (32 - (k))))

/*
 * bf_hash_bytes_interruptible: hash_any(k, len), the same value (Bob
 * Jenkins' lookup3 as PostgreSQL's hash_bytes computes it on a little-endian
 * machine), checking for interrupts every mebibyte: hash_any over a 256 MiB
 * filter is one uninterruptible call.  On big-endian machines: hash_any.
 */
uint32
bf_hash_bytes_interruptible(const uint8 *k, size_t len)
{
#ifdef WORDS_BIGENDIAN
	return DatumGetUInt32(hash_any(k, (int) len));
#else
	uint32		a,
				b,
				c,
				w[3];
	size_t		blocks = 0;

	a = b = c = 0x9e3779b9 + (uint32) len + 3923095;
	for (; len >= 12; len -= 12, k += 12)
	{
		memcpy(w, k, 12);
		a += w[0];
		b += w[1];
		c += w[2];
		a -= c; a ^= BF_ROT(c, 4); c += b;
		b -= a; b ^= BF_ROT(a, 6); a += c;
		c -= b; c ^= BF_ROT(b, 8); b += a;
		a -= c; a ^= BF_ROT(c, 16); c += b;
		b -= a; b ^= BF_ROT(a, 19); a += c;
		c -= b; c ^= BF_ROT(b, 4); b += a;
		if (++blocks % (BF_CHUNK_BYTES / 12) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	switch (len)				/* the last 11 bytes; the lowest byte of c is the length's */
	{
		case 11:
			c += ((uint32) k[10] << 24);
			/* fall through */
		case 10:
			c += ((uint32) k[9] << 16);
			/* fall through */
		case 9:
			c += ((uint32) k[8] << 8);
			/* fall through */
		case 8:
			b += ((uint32) k[7] << 24);
			/* fall through */
		case 7:
			b += ((uint32) k[6] << 16);
			/* fall through */
		case 6:
			b += ((uint32) k[5] << 8);
			/* fall through */
		case 5:
			b += k[4];
			/* fall through */
		case 4:
			a += ((uint32) k[3] << 24);
			/* fall through */
		case 3:
			a += ((uint32) k[2] << 16);
			/* fall through */
		case 2:
			a += ((uint32) k[1] << 8);
			/* fall through */
		case 1:
			a += k[0];
	}
	c ^= b; c -= BF_ROT(b, 14);
	a ^= c; a -= BF_ROT(c, 11);
	b ^= a; b -= BF_ROT(a, 25);
	c ^= b; c -= BF_ROT(b, 16);
	a ^= c; a -= BF_ROT(c, 4);
	b ^= a; b -= BF_ROT(a, 14);
	c ^= b; c -= BF_ROT(b, 24);
	return c;
#endif
}

/*
 * bf_hex_span: strspn(p, "0123456789abcdefABCDEF"), checking for interrupts
 * every mebibyte (the text form of a 2^31-bit value is 512 MiB of hex).
 */
size_t
bf_hex_span(const char *p)
{
	const char *q = p;

	for (;;)
	{
		for (const char *end = q + BF_CHUNK_BYTES; q < end; q++)
			if (!((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f') ||
				  (*q >= 'A' && *q <= 'F')))
				return (size_t) (q - p);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * bf_begintypsend_exact: pq_begintypsend for a message of exactly `payload`
 * bytes, allocated once within the limit (a StringInfo grows by doubling: a
 * 256 MiB message would take 512 MiB).
 */
void
bf_begintypsend_exact(StringInfo buf, uint64 payload, const char *what)
{
	buf->maxlen = (int) (VARHDRSZ + payload + 1);
	buf->data = bf_palloc_value(buf->maxlen, false, what);
	buf->len = VARHDRSZ;			/* the bytea header, set by pq_endtypsend */
	buf->cursor = 0;
}

/*
 * bf_palloc_value: `size` bytes in the current memory context for a value's
 * bit array or form, zeroed (interruptibly) when `zero`; checks the size
 * alone against the limit (callers that allocate several buffers check
 * their total first with bf_value_memory_check).
 */
void *
bf_palloc_value(uint64 size, bool zero, const char *what)
{
	void	   *p;

	bf_value_memory_check(size, what);
	p = palloc((Size) size);
	if (zero)
		bf_zero_interruptible(p, (Size) size);
	return p;
}
