package model

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"starbench/internal/fio"
)

// What LZ4 leaves of a 4 KiB block of fio's compressible data is its
// random bytes and LZ4's framing (lz4_block_overhead_bytes), so OSA's
// 2 KiB slot takes 52 % compressible data and not 50 %, and ESA stores 50 %
// data in five 512-byte sectors. Against fio 3.33's buffers (the default
// buffer_compress_chunk) compressed block by block with the lz4 tool's
// fast mode; skipped without fio or lz4 (the README's test command
// installs both).
func TestLZ4LeavesWhatTheModelSays(t *testing.T) {
	leaves := lz4Leaves(t)
	overhead := mustLoad(t, "wwt-r640-osa").Model.LZ4BlockOverheadBytes.Value
	osa := costModelFor(t, mustLoad(t, "wwt-r640-osa"), false, true, false)
	esa := costModelFor(t, mustLoad(t, "storagereview-r6625-esa"), false, true, false)
	for _, pct := range []int{25, 50, 52, 75} {
		t.Run(fmt.Sprintf("%d %%", pct), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "f")
			var report moved
			runFio(t, &report, "--output-format=json", "--name=w", "--filename="+file, "--size=1m", "--bs=4k", "--rw=write",
				fmt.Sprintf("--buffer_compress_percentage=%d", pct))
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			largest := 0
			for b := 0; b < 16; b++ {
				largest = max(largest, leaves(data[b*efficiencyBlock:(b+1)*efficiencyBlock]))
			}
			model := (1-float64(pct)/100)*efficiencyBlock + overhead
			if math.Abs(float64(largest)-model) > 12 {
				t.Errorf("LZ4 leaves up to %d bytes of a 4 KiB block, the model %.0f", largest, model)
			}
			if kept := osa.saving(pct) > 0; kept != (largest <= efficiencyBlock/2) {
				t.Errorf("OSA keeps the block compressed: %v; LZ4 leaves %d bytes", kept, largest)
			}
			sectors := math.Ceil(float64(largest) / esaSectorBytes)
			if want := 1 - sectors*esaSectorBytes/efficiencyBlock; math.Abs(esa.saving(pct)-want) > 1e-12 {
				t.Errorf("ESA saves %g, the %d-byte block in %.0f sectors %g", esa.saving(pct), largest, sectors, want)
			}
		})
	}
}

// With a compress chunk above 4 KiB fio's random bytes and zeros fall in
// different 4 KiB blocks: what OSA and ESA save on a write is its blocks'
// mix (blockMix), against fio 3.33's 64 KiB writes compressed block by
// block with lz4 (the mean saving over the blocks).
func TestChunkedBlocksAsLZ4LeavesThem(t *testing.T) {
	leaves := lz4Leaves(t)
	osa := costModelFor(t, mustLoad(t, "wwt-r640-osa"), false, true, false)
	esa := costModelFor(t, mustLoad(t, "storagereview-r6625-esa"), false, true, false)
	for _, c := range []struct {
		pct   int
		chunk string
	}{{50, "64k"}, {30, "16k"}, {75, "0"}} {
		t.Run(fmt.Sprintf("%d %% in %s chunks", c.pct, c.chunk), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "f")
			var report moved
			runFio(t, &report, "--output-format=json", "--name=w", "--filename="+file, "--size=256k", "--bs=64k", "--rw=write",
				fmt.Sprintf("--buffer_compress_percentage=%d", c.pct), "--buffer_compress_chunk="+c.chunk)
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var osaSaved, esaSaved float64
			blocks := len(data) / efficiencyBlock
			for b := range blocks {
				left := float64(leaves(data[b*efficiencyBlock : (b+1)*efficiencyBlock]))
				if left <= efficiencyBlock/2 {
					osaSaved += 0.5
				}
				esaSaved += math.Max(0, 1-math.Max(1, math.Ceil(left/esaSectorBytes))*esaSectorBytes/efficiencyBlock)
			}
			osaSaved /= float64(blocks)
			esaSaved /= float64(blocks)
			job := fio.Job{IOEngine: "libaio", Direct: true, RW: "write", BlockSize: 65536, BufferCompressPercentage: c.pct, Options: []fio.Option{{Key: "buffer_compress_chunk", Value: c.chunk}}}
			sh, err := readJob(&job)
			if err != nil {
				t.Fatal(err)
			}
			var osaModel, esaModel float64
			for _, b := range sh.blockMix(65536, float64(c.pct)) {
				osaModel += b.share * osa.saving(int(math.Round(b.pct)))
				esaModel += b.share * esa.saving(int(math.Round(b.pct)))
			}
			if math.Abs(osaModel-osaSaved) > 0.03 || math.Abs(esaModel-esaSaved) > 0.03 {
				t.Errorf("OSA saves %.3f, ESA %.3f of the blocks' bytes; the model %.3f and %.3f (%s)", osaSaved, esaSaved, osaModel, esaModel, sh.blockMix(65536, float64(c.pct)))
			} else {
				t.Logf("OSA saves %.3f, ESA %.3f; the model %.3f and %.3f", osaSaved, esaSaved, osaModel, esaModel)
			}
		})
	}
}

// What LZ4 spends on fio's data is its match search: lz4_block_cycles and
// lz4_attempt_cycles are the least-squares line through the "fit" kinds of
// block in testdata/lz4cost/measured.csv (liblz4 on fio 3.33's data,
// measured by measure.sh there), and the model's cycles come within 15 %
// of every kind measured, the "held" ones too, which the fit never saw.
// decompress_cycles_per_byte is the median measured.
func TestLZ4CyclesAsMeasured(t *testing.T) {
	f, err := os.Open("testdata/lz4cost/measured.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	m := mustLoad(t, "storagereview-r6625-esa").Model
	cm := costModelFor(t, mustLoad(t, "storagereview-r6625-esa"), false, true, false)
	type kind struct {
		fit            bool
		pct            int
		chunk          float64
		tries, cycles  float64 // per 4 KiB block
		decompressPerB float64
	}
	var kinds []kind
	for _, r := range rows[1:] {
		pct, err1 := strconv.Atoi(r[1])
		chunk, err2 := strconv.ParseFloat(r[2], 64)
		perByte, err3 := strconv.ParseFloat(r[3], 64)
		decompress, err4 := strconv.ParseFloat(r[4], 64)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			t.Fatalf("measured.csv %v: %v", r, err)
		}
		runs, run := randomRuns(float64(pct)/100, chunk)
		if pct == 100 && (runs != 0 || run != 0) {
			t.Errorf("a block all zeros in chunks of %g bytes: %g runs of %g random bytes, want none", chunk, runs, run)
		}
		kinds = append(kinds, kind{r[0] == "fit", pct, chunk, runs * matchAttempts(run), perByte * efficiencyBlock, decompress})
	}
	// The line cycles = block + tries x attempt through the fit rows.
	var n, sx, sy, sxx, sxy float64
	for _, k := range kinds {
		if k.fit {
			n, sx, sy, sxx, sxy = n+1, sx+k.tries, sy+k.cycles, sxx+k.tries*k.tries, sxy+k.tries*k.cycles
		}
	}
	attempt := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	block := (sy - attempt*sx) / n
	if !within(m.LZ4BlockCycles.Value, block, 0.01) || !within(m.LZ4AttemptCycles.Value, attempt, 0.01) {
		t.Errorf("lz4_block_cycles %g and lz4_attempt_cycles %g; the measured kinds give %.0f and %.2f", m.LZ4BlockCycles.Value, m.LZ4AttemptCycles.Value, block, attempt)
	}
	var decompress []float64
	for _, k := range kinds {
		cm.chunk = k.chunk
		got := cm.lz4Cycles(efficiencyBlock, k.pct)
		if !within(got, k.cycles, 0.15) {
			t.Errorf("%d %% compressible in %.0f-byte chunks (fit %v): the model spends %.0f cycles a block, liblz4 %.0f", k.pct, k.chunk, k.fit, got, k.cycles)
		}
		if k.pct > 0 {
			decompress = append(decompress, k.decompressPerB)
		}
	}
	slices.Sort(decompress)
	if median := decompress[len(decompress)/2]; !within(m.DecompressCyclesPerByte.Value, median, 0.01) {
		t.Errorf("decompress_cycles_per_byte %g; the measured median %g", m.DecompressCyclesPerByte.Value, median)
	}
}

// within says got is within a share tol of want.
func within(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }

// matchAttempts counts what lz4.c's search loop tries: its step is
// searchMatchNb++ >> LZ4_skipTrigger (6), searchMatchNb starting at 64.
func TestMatchAttemptsAsLZ4Searches(t *testing.T) {
	for n := 0; n <= 2*efficiencyBlock; n++ {
		tries, covered := 0, 0
		for nb := 64; covered < n; nb++ {
			covered += nb >> 6
			tries++
		}
		if got := matchAttempts(float64(n)); got != float64(tries) {
			t.Fatalf("%d bytes: matchAttempts %g, lz4's loop %d", n, got, tries)
		}
	}
}

// lz4Leaves returns what the lz4 tool's fast mode leaves of a block: its
// output less an empty frame's and a block's size field. It skips the test
// without fio or lz4 (the README's test command installs both).
func lz4Leaves(t *testing.T) func(block []byte) int {
	t.Helper()
	needFio(t)
	if _, err := exec.LookPath("lz4"); err != nil {
		t.Skip("lz4 is not installed (the README's test command installs it)")
	}
	lz4 := func(in []byte) int {
		t.Helper()
		cmd := exec.Command("lz4", "-1", "-c", "-q")
		cmd.Stdin = bytes.NewReader(in)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return len(out)
	}
	frame := lz4(nil) + 4
	return func(block []byte) int { return lz4(block) - frame }
}
