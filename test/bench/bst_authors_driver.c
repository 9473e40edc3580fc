/*
 * test/bench/bst_authors_driver.c
 *    The timing loop of the BloomSampleTree authors' sampling test
 *    (BSTtesting.c of github.com/senguptaneha/BloomSampling), around THEIR
 *    tree and sampler, for test/bench/bst_authors.sh: none of their code is
 *    copied here; the script compiles this file with -I<their checkout>, and
 *    it includes their bloomTree.c (tree, sampleFromTree) and links their
 *    bloom.c.  Differences from BSTtesting.c, each so that both sides run the
 *    same configuration: m and the tree's levels are arguments (BSTtesting
 *    derives m from a fixed set size of 10,000 and the levels from a timing
 *    run), the dictionary-attack baseline is left out (bloomsample's own
 *    benchmark measures it), and besides one timed call per sample (as
 *    BSTtesting times them) a batch of consecutive calls is timed as one
 *    interval.
 *
 * usage: bst_authors_driver M m k levels sets_file samples_per_set seed
 *                           [batch_sets [batch_size]]
 *    sets_file: one set a line, comma-separated ids in [0, M)
 *    samples_per_set: single calls per set, each timed with clock_gettime
 *    (CLOCK_MONOTONIC, nanosecond resolution); batch_sets (default: every
 *    set) sets then get a batch of batch_size (default samples_per_set)
 *    consecutive calls timed as one interval
 * prints: build seconds; single calls: the median and mean wall time per
 * call, the wall time of all of them divided by their number (the loop
 * included) and the mean CPU time (us); batches: the mean wall and CPU time
 * per sample (us); the fraction of samples in their set.
 */
#include "bloomTree.c"
#include "bench_timing.h"

int
main(int argc, char **argv)
{
	int			M,
				nsamples,
				batch_sets,
				batch_size,
				nsets = 0,
				hits = 0,
				total = 0,
				nsingle = 0;
	long		nbatch = 0;
	double		t0,
				build_s,
				batch_s = 0,
				batch_cpu = 0,
				single_cpu = 0,
				single_wall = 0,
				w0,
				c0,
				single_sum = 0;
	double	   *single;
	static char line[1 << 20];
	int		   *set;
	FILE	   *fi;
	struct bloom *q;
	struct bloomTree *tree;

	if (argc < 8)
	{
		fprintf(stderr, "usage: %s M m k levels sets_file samples_per_set seed\n", argv[0]);
		return 2;
	}
	M = atoi(argv[1]);
	VECT_SIZE = atoi(argv[2]);
	K = atoi(argv[3]);
	levelThreshold = atoi(argv[4]);
	nsamples = atoi(argv[6]);
	batch_sets = argc > 8 ? atoi(argv[8]) : 1 << 30;
	batch_size = argc > 9 ? atoi(argv[9]) : nsamples;
	T = 0;						/* the threshold BSTtesting is run with for sampling */
	srand((unsigned) atoi(argv[7]));
	setSeeds();
	seiveInitial();
	q = malloc(sizeof(struct bloom));
	q->bloom_vector = malloc(sizeof(int) * (VECT_SIZE / NUM_BITS + 1));
	init(q);
	t0 = bench_now_sec();
	tree = getBloomTree(0, M - 1);
	build_s = bench_now_sec() - t0;
	set = malloc(sizeof(int) * 1000000);
	single = malloc(sizeof(double) * 1000000);
	if (!(fi = fopen(argv[5], "r")))
	{
		perror(argv[5]);
		return 1;
	}
	while (fgets(line, sizeof(line), fi))
	{
		int			n = 0,
					query_ones;
		char	   *tok;

		init(q);
		for (tok = strtok(line, ",\n"); tok && n < 1000000; tok = strtok(NULL, ",\n"))
		{
			set[n] = atoi(tok);
			insert(set[n], q);
			n++;
		}
		query_ones = num_ones(q);
		/* single calls, each timed (as BSTtesting.c does) */
		c0 = bench_cpu_sec();
		w0 = bench_now_sec();
		for (int j = 0; j < nsamples && nsingle < 1000000; j++)
		{
			int			s;

			t0 = bench_now_sec();
			s = sampleFromTree(q, tree, query_ones);
			single[nsingle] = (bench_now_sec() - t0) * 1e6;
			single_sum += single[nsingle++];
			hits += belongsInArr1(s, set, n) >= 0;
			total++;
		}
		single_wall += bench_now_sec() - w0;
		single_cpu += bench_cpu_sec() - c0;
		/* a batch: consecutive calls timed as one interval */
		if (nsets < batch_sets)
		{
			c0 = bench_cpu_sec();
			t0 = bench_now_sec();
			for (int j = 0; j < batch_size; j++)
				(void) sampleFromTree(q, tree, query_ones);
			batch_s += bench_now_sec() - t0;
			batch_cpu += bench_cpu_sec() - c0;
			nbatch += batch_size;
		}
		nsets++;
	}
	fclose(fi);
	qsort(single, nsingle, sizeof(double), bench_cmp_double);
	printf("M=%d m=%d k=%d levels=%d sets=%d samples/set=%d build_s=%.2f "
		   "single_median_us=%.2f single_mean_us=%.2f single_wall_per_call_us=%.2f "
		   "single_cpu_us=%.2f batch_samples=%ld batch_per_sample_us=%.2f "
		   "batch_cpu_per_sample_us=%.2f accuracy=%.3f\n",
		   M, VECT_SIZE, K, levelThreshold, nsets, nsamples, build_s,
		   nsingle ? single[nsingle / 2] : 0.0, nsingle ? single_sum / nsingle : 0.0,
		   nsingle ? single_wall * 1e6 / nsingle : 0.0,
		   nsingle ? single_cpu * 1e6 / nsingle : 0.0, nbatch,
		   nbatch ? batch_s * 1e6 / (double) nbatch : 0.0,
		   nbatch ? batch_cpu * 1e6 / (double) nbatch : 0.0,
		   total ? (double) hits / total : 0.0);
	return 0;
}
