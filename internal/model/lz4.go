package model

import "math"

// lz4Cycles is LZ4's cost to compress b bytes of fio's data, pct %
// compressible and filled in chunks of chunk bytes (buffer_compress_chunk),
// 4 KiB block by block as vSAN compresses: lz4_block_cycles a block and
// lz4_attempt_cycles a try of its match search. LZ4 (lz4.c,
// LZ4_compress_generic) tries every byte of data it cannot match and,
// after each 64 failed tries, strides one byte further; a match (fio's
// zeros) starts it over at every byte. So a block of random bytes costs
// few tries for its size, a block of zeros almost none, and fio's default
// 512-byte chunks, eight short random runs a block, the most.
func (c *costModel) lz4Cycles(b float64, pct int) float64 {
	runs, run := randomRuns(float64(pct)/100, c.chunk)
	tries := runs * matchAttempts(run)
	return b / efficiencyBlock * (c.m.LZ4BlockCycles.Value + tries*c.m.LZ4AttemptCycles.Value)
}

// randomRuns is how fio lays out a 4 KiB block of data with a share z of
// zeros written in chunks of chunk bytes (lib/rand.c,
// fill_random_buf_percentage: each chunk its random bytes, then its
// zeros): how many runs of random bytes the block holds, and how long
// each is. A chunk of 4 KiB or more (or 0: the whole write) leaves each
// block at most one run (blockMix gives each block its own share).
func randomRuns(z, chunk float64) (runs, length float64) {
	if z >= 1 {
		return 0, 0
	}
	runs = 1
	if z > 0 && chunk > 0 && chunk < efficiencyBlock {
		runs = efficiencyBlock / chunk
	}
	return runs, (1 - z) * efficiencyBlock / runs
}

// matchAttempts is how many positions LZ4's match search tries over n
// bytes it finds no match in: 64 tries a byte apart, 64 two bytes apart,
// and so on, so k whole rounds of 64 cover 32 k (k+1) bytes.
func matchAttempts(n float64) float64 {
	if n <= 0 {
		return 0
	}
	k := math.Floor((math.Sqrt(1+n/8) - 1) / 2)
	return 64*k + math.Ceil((n-32*k*(k+1))/(k+1))
}
