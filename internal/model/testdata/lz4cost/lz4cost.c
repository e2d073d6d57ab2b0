// lz4cost prints what liblz4 spends, in CPU cycles a byte, to compress and
// decompress a file 4 KiB block by block, as vSAN compresses: the best of
// 15 passes, each pass's cycles taken from a chain of dependent adds (one
// a cycle) timed just before and after it, so a boosting clock counts.
//
//	gcc -O2 -o lz4cost lz4cost.c /usr/lib/x86_64-linux-gnu/liblz4.so.1
//	./lz4cost file
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int LZ4_compress_default(const char *src, char *dst, int srcSize, int dstCapacity);
int LZ4_decompress_safe(const char *src, char *dst, int compressedSize, int dstCapacity);

enum { block = 4096, room = 4200 };

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

// ghz times 800 million dependent adds.
static double ghz(void) {
	unsigned long x = 1, n = 200000000UL;
	double start = now();
	for (unsigned long i = 0; i < n; i++)
		__asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
	return 4.0 * n / (now() - start) / 1e9;
}

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: lz4cost file\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	long capacity = 64L << 20;
	char *src = malloc(capacity);
	long n = fread(src, 1, capacity, f);
	fclose(f);
	long blocks = n / block;
	n = blocks * block;
	char *dst = malloc(blocks * room), out[block];
	int *size = malloc(blocks * sizeof(int));
	double compress = 1e9, decompress = 1e9, kept = 0, shrunk = 0;
	for (int pass = 0; pass < 15; pass++) {
		double clock = ghz(), start = now();
		for (long b = 0; b < blocks; b++)
			size[b] = LZ4_compress_default(src + b * block, dst + b * room, block, room);
		double compressing = now() - start;
		start = now();
		shrunk = kept = 0;
		for (long b = 0; b < blocks; b++) {
			kept += size[b];
			if (size[b] < block) { // vSAN keeps only blocks that shrink
				LZ4_decompress_safe(dst + b * room, out, size[b], block);
				shrunk += block;
			}
		}
		double decompressing = now() - start;
		clock = (clock + ghz()) / 2 * 1e9;
		if (compressing * clock / n < compress)
			compress = compressing * clock / n;
		if (shrunk > 0 && decompressing * clock / shrunk < decompress)
			decompress = decompressing * clock / shrunk;
	}
	printf("%.3f,%.3f,%.3f\n", compress, shrunk > 0 ? decompress : 0, kept / n);
	return 0;
}
