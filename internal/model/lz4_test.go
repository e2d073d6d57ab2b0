package model

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
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
