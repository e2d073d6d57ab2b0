package plots

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

var regen = flag.Bool("regen", false, "rewrite the golden images in testdata/")

// golden compares a figure drawn as PNG with testdata/name.png, tolerating
// anti-aliasing noise: at most 0.2% of pixels may differ noticeably.
func golden(t *testing.T, name string, f *Figure, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := f.Write(context.Background(), &got, "png", DefaultSize, 96); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name+".png")
	if *regen {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./plots/ -regen to create it)", err)
	}
	if frac, err := differing(got.Bytes(), want); err != nil || frac > 0.002 {
		out := filepath.Join(t.TempDir(), name+".png")
		os.WriteFile(out, got.Bytes(), 0o644)
		t.Fatalf("%s differs from its golden image (%.2f%% of pixels, err %v); got %s", name, 100*frac, err, out)
	}
}

// differing returns the fraction of pixels whose colour differs by more
// than a small threshold in any channel.
func differing(a, b []byte) (float64, error) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return 1, err
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return 1, err
	}
	if ia.Bounds() != ib.Bounds() {
		return 1, nil
	}
	bad := 0
	r := ia.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if !near(ia, ib, x, y) {
				bad++
			}
		}
	}
	return float64(bad) / float64(r.Dx()*r.Dy()), nil
}

func near(a, b image.Image, x, y int) bool {
	r1, g1, b1, _ := a.At(x, y).RGBA()
	r2, g2, b2, _ := b.At(x, y).RGBA()
	d := func(p, q uint32) uint32 { return max(p, q) - min(p, q) }
	return max(d(r1, r2), d(g1, g2), d(b1, b2)) <= 24<<8
}

var policies = []string{"RAID-1 FTT=1", "RAID-5 FTT=1 erasure coding", "RAID-6 FTT=2 erasure coding"}

func TestGoldenBars(t *testing.T) {
	f, err := Bars([]string{"randread", "randwrite", "oltp"}, []Series{{Y: []float64{182000, 64000, 95000}}},
		Options{Title: "4k random I/O, RAID-1", YLabel: "throughput", YUnit: "IOPS", ValueLabels: true})
	golden(t, "bars", f, err)
}

func TestGoldenGroupedBars(t *testing.T) {
	f, err := Bars(policies, []Series{
		{Name: "randread 4k", Y: []float64{182000, 161000, 120000}, Err: []float64{4000, 5500, 3000}},
		{Name: "randwrite 4k", Y: []float64{64000, 31000, 21000}, Err: []float64{2000, 1500, 1800}},
		{Name: "70/30 8k", Y: []float64{95000, 66000, 48000}, Err: []float64{3000, 2500, 2000}},
	}, Options{Title: "Policy comparison, 24 hosts", YLabel: "throughput", YUnit: "IOPS", ValueLabels: true})
	golden(t, "grouped", f, err)
}

// Changes that rise and fall, as a campaign's "what each switch changes"
// draws them: each label beyond its bar's end, clear of the other bars and
// labels.
func TestGoldenSignedBars(t *testing.T) {
	f, err := Bars([]string{"32k", "4k", "general", "sql"}, []Series{
		{Name: "cost of compression", Y: []float64{-8.84, -14.3, -10.4, -11.8}},
		{Name: "gain of RoCEv2", Y: []float64{-7.19, 23.3, -6.91, 0.0758}},
		{Name: "gain of 25 GbE", Y: []float64{35.7, 1.02, 58.1, 20.1}},
	}, Options{Title: "What each switch changes", YLabel: "IOPS change", YUnit: "%", ValueLabels: true})
	golden(t, "signed", f, err)
}

func TestGoldenStackedBars(t *testing.T) {
	f, err := Bars([]string{"10 GbE", "25 GbE", "25 GbE + RDMA"}, []Series{
		{Name: "read", Y: []float64{1100, 2600, 2900}},
		{Name: "write", Y: []float64{600, 1300, 1500}},
	}, Options{Title: "Mixed 64k throughput by uplink", YLabel: "throughput", YUnit: "MB/s", Stacked: true, ValueLabels: true})
	golden(t, "stacked", f, err)
}

func TestGoldenLinesWithErrorBars(t *testing.T) {
	x := []float64{1, 2, 4, 8, 16, 32}
	f, err := Lines([]Series{
		{Name: "compression off", X: x, Y: []float64{40000, 78000, 140000, 205000, 231000, 236000}, Err: []float64{1000, 2500, 4000, 6000, 5000, 7000}},
		{Name: "compression on", X: x, Y: []float64{36000, 70000, 122000, 170000, 188000, 190000}, Err: []float64{1500, 2000, 5000, 4000, 6000, 5000}},
	}, Options{Title: "Scaling with outstanding I/O (mean ± std of 3 repeats)", XLabel: "outstanding I/O per disk", YLabel: "throughput", YUnit: "IOPS", LogX: true})
	golden(t, "lines", f, err)
}

func TestGoldenScatter(t *testing.T) {
	f, err := Scatter([]Series{
		{Name: "RAID-1", X: []float64{1e4, 5e4, 1e5, 1.5e5, 2e5}, Y: []float64{250, 400, 650, 1100, 2300}},
		{Name: "RAID-5", X: []float64{1e4, 5e4, 1e5, 1.5e5, 2e5}, Y: []float64{230, 380, 700, 1200, 2100}},
	}, Options{Title: "p99 latency against throughput, per run", XLabel: "throughput", XUnit: "IOPS", YLabel: "p99 latency", YUnit: "µs"})
	golden(t, "scatter", f, err)
}

func TestGoldenHockey(t *testing.T) {
	oio := []string{"1", "2", "4", "8", "16", "32", "64"}
	f, err := Hockey([]Series{
		{Name: "10 GbE", X: []float64{30e3, 58e3, 105e3, 150e3, 170e3, 176e3, 178e3}, Y: []float64{220, 240, 290, 420, 800, 1600, 3300}, Labels: oio},
		{Name: "25 GbE", X: []float64{32e3, 63e3, 120e3, 210e3, 290e3, 320e3, 328e3}, Y: []float64{200, 210, 240, 300, 480, 900, 1900}, Labels: oio,
			XErr: []float64{500, 900, 2000, 4000, 6000, 5000, 7000}, Err: []float64{5, 6, 8, 12, 30, 60, 150}},
	}, Options{Title: "Latency against throughput across outstanding I/O", XLabel: "throughput", XUnit: "IOPS", YLabel: "p99 latency", YUnit: "µs", Simulated: true})
	golden(t, "hockey", f, err)
}

func TestGoldenHeatmap(t *testing.T) {
	f, err := Heatmap([]string{"compression off", "compression on"}, []string{"rdma off", "rdma on"},
		[][]float64{{182000, 221000}, {151000, 190000}}, "IOPS",
		Options{Title: "4k randread IOPS, 25 GbE", XLabel: "", YLabel: "", Simulated: true})
	golden(t, "heatmap", f, err)
}

func TestGoldenFacets(t *testing.T) {
	var figs []*Figure
	for i, up := range []string{"10 GbE", "25 GbE"} {
		k := float64(i + 1)
		sub, err := Bars(policies, []Series{
			{Name: "read", Y: []float64{100000 * k, 80000 * k, 60000 * k}},
			{Name: "write", Y: []float64{50000 * k, 25000 * k, 18000 * k}},
		}, Options{Title: up, YUnit: "IOPS"})
		if err != nil {
			t.Fatal(err)
		}
		figs = append(figs, sub)
	}
	f, err := Facets("IOPS by policy and uplink", figs, 2, true)
	golden(t, "facets", f, err)
}

func TestFormatValue(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{80000, "IOPS", "80k"}, {1.2e6, "", "1.2M"}, {0, "", "0"}, {950, "", "950"},
		{10000, "MB/s", "10 GB/s"}, {1500, "µs", "1.5 ms"}, {250, "µs", "250 µs"},
		{0.5, "s", "500 ms"}, {42, "%", "42%"}, {3, "hosts", "3 hosts"}, {-2500, "", "-2.5k"},
	} {
		if got := FormatValue(c.v, c.unit); got != c.want {
			t.Errorf("FormatValue(%v, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	s, err := ParseSize("16x10cm")
	if err != nil || s != (Size{16 * vg.Centimeter, 10 * vg.Centimeter}) {
		t.Fatalf("16x10cm = %v, %v", s, err)
	}
	if s, _ := ParseSize("6in x 4in"); s.Width != 6*vg.Inch || s.Height != 4*vg.Inch {
		t.Fatalf("6in x 4in = %v", s)
	}
	for _, bad := range []string{"16x10", "16cm", "axbcm", "-1x2cm"} {
		if _, err := ParseSize(bad); err == nil || !strings.Contains(err.Error(), "16x10cm") {
			t.Errorf("ParseSize(%q) err = %v", bad, err)
		}
	}
}

func TestSaveFormats(t *testing.T) {
	f, err := Bars([]string{"a"}, []Series{{Y: []float64{1}}}, Options{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for ext, magic := range map[string]string{"png": "\x89PNG", "svg": "<?xml", "pdf": "%PDF"} {
		path := filepath.Join(dir, "sub", "fig."+ext)
		if err := f.Save(context.Background(), path, DefaultSize, 72); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		if !bytes.HasPrefix(b, []byte(magic)) {
			t.Errorf("%s starts %q, want %q", ext, b[:min(len(b), 8)], magic)
		}
		if ext == "svg" && !bytes.Contains(b, []byte("SIMULATED")) {
			t.Errorf("svg lacks the simulated stamp")
		}
	}
	if err := f.Save(context.Background(), filepath.Join(dir, "fig.gif"), DefaultSize, 72); err == nil || !strings.Contains(err.Error(), ".png, .svg or .pdf") {
		t.Errorf("gif err = %v", err)
	}
}

func TestWrap(t *testing.T) {
	sty := textStyle(8, inkColor)
	got := wrap("RAID-5 FTT=1 erasure coding", sty, sty.Width("RAID-5 FTT=1 "))
	if got != "RAID-5 FTT=1\nerasure coding" {
		t.Fatalf("wrap = %q", got)
	}
}

func TestGoldenRotatedCategories(t *testing.T) {
	cats := []string{"vdi-boot-storm", "oltp-8k-70r", "olap-256k-seq", "backup-1m-write", "exchangejetstress2016", "sql-log-64k", "web-4k-read", "hadoop-teragen"}
	y := []float64{52000, 91000, 2600, 1100, 43000, 18000, 240000, 3100}
	f, err := Bars(cats, []Series{{Y: y}}, Options{Title: "Workload mix, one policy", YUnit: "IOPS", YLabel: "IOPS"})
	golden(t, "rotated", f, err)
}

func TestGoldenHeatmapFacets(t *testing.T) {
	var figs []*Figure
	for i, up := range []string{"10 GbE", "25 GbE"} {
		k := 1 + 0.6*float64(i)
		sub, err := Heatmap([]string{"compression off", "compression on"}, []string{"rdma off", "rdma on"},
			[][]float64{{120000 * k, 140000 * k}, {100000 * k, 118000 * k}}, "IOPS", Options{Title: up, Simulated: true})
		if err != nil {
			t.Fatal(err)
		}
		figs = append(figs, sub)
	}
	f, err := Facets("4k randread IOPS: compression x rdma by uplink", figs, 2, true)
	golden(t, "heatmap_facets", f, err)
}

func TestLogScalesRejectNonPositive(t *testing.T) {
	_, err := Lines([]Series{{Name: "a", X: []float64{0, 1}, Y: []float64{1, 2}}}, Options{LogX: true})
	if err == nil || !strings.Contains(err.Error(), "logarithmic x axis needs values above 0") {
		t.Errorf("log x with 0: %v", err)
	}
	_, err = Lines([]Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}, Err: []float64{0.5, 3}}}, Options{LogY: true})
	if err == nil || !strings.Contains(err.Error(), "error bar reaches -1") {
		t.Errorf("log y with a long error bar: %v", err)
	}
	if _, err := Bars([]string{"a"}, []Series{{Y: []float64{1}}}, Options{LogY: true}); err == nil {
		t.Errorf("log bars: no error")
	}
}

func TestSeriesLengthsAreChecked(t *testing.T) {
	short := []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}, Err: []float64{0.5}}}
	if _, err := Bars([]string{"x", "y"}, short, Options{}); err == nil || !strings.Contains(err.Error(), "1 error values for 2 values") {
		t.Errorf("bars with a short err: %v", err)
	}
	if _, err := Lines(short, Options{}); err == nil || !strings.Contains(err.Error(), "1 error values for 2 values") {
		t.Errorf("lines with a short err: %v", err)
	}
	labels := []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}, Labels: []string{"1"}}}
	if _, err := Hockey(labels, Options{}); err == nil || !strings.Contains(err.Error(), "1 labels for 2 values") {
		t.Errorf("hockey with a short label list: %v", err)
	}
}

// TestInfiniteValuesAreRefused: an axis cannot reach an infinite value
// (gonum's ticks never end on one), so every chart refuses it by name.
func TestInfiniteValuesAreRefused(t *testing.T) {
	inf := math.Inf(1)
	_, err := Bars([]string{"a", "b"}, []Series{{Name: "s", Y: []float64{1, inf}}}, Options{})
	if err == nil || !strings.Contains(err.Error(), `y is +Inf at series "s", category "b"`) {
		t.Errorf("bars with +Inf: %v", err)
	}
	_, err = Bars([]string{"a"}, []Series{{Y: []float64{1}, Err: []float64{inf}}}, Options{})
	if err == nil || !strings.Contains(err.Error(), `the error is +Inf at category "a"`) {
		t.Errorf("bars with an infinite error bar: %v", err)
	}
	_, err = Hockey([]Series{{Name: "h", X: []float64{1, math.Inf(-1)}, Y: []float64{1, 2}, Labels: []string{"1", "4"}}}, Options{})
	if err == nil || !strings.Contains(err.Error(), `x is -Inf at series "h", point "4"`) {
		t.Errorf("hockey with -Inf: %v", err)
	}
	_, err = Heatmap([]string{"r"}, []string{"c1", "c2"}, [][]float64{{1, inf}}, "", Options{})
	if err == nil || !strings.Contains(err.Error(), `cell "r", "c2" is +Inf`) {
		t.Errorf("heatmap with +Inf: %v", err)
	}
}

// TestWriteHonoursCancellation: a cancelled drawing returns the context's
// error and writes nothing.
func TestWriteHonoursCancellation(t *testing.T) {
	f, err := Bars([]string{"a"}, []Series{{Y: []float64{1}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var buf bytes.Buffer
	if err := f.Write(ctx, &buf, "png", DefaultSize, 72); !errors.Is(err, context.Canceled) || buf.Len() > 0 {
		t.Errorf("cancelled Write: err %v, %d bytes written", err, buf.Len())
	}
	path := filepath.Join(t.TempDir(), "f.png")
	if err := f.Save(ctx, path, DefaultSize, 72); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Save: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a cancelled Save left %s (%v)", path, err)
	}
}

// Long category labels (a compare figure's "policy=raid1
// compression=False / 1m-seq-write write") are rotated, wrapped into the
// lines that fit between neighbours, and the panel moves right until the
// first one ends inside the figure: they ran off its left edge, cut.
func TestLongRotatedLabelsStayInTheFigure(t *testing.T) {
	var cats []string
	var y []float64
	for _, policy := range []string{"raid1", "raid5"} {
		for _, c := range []string{"False", "True"} {
			for _, w := range []string{"1m-seq-write write", "4k-rand-read read"} {
				cats = append(cats, "policy="+policy+" compression="+c+" / "+w)
				y = append(y, float64(len(cats)))
			}
		}
	}
	f, err := Bars(cats, []Series{{Y: y}}, Options{Title: "Change"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(context.Background(), &buf, "png", DefaultSize, 96); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Min.X+3; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				t.Fatalf("ink at (%d, %d), the figure's left edge: a label runs off it", x, y)
			}
		}
	}
	pn := f.panels[0]
	pn.fit(DefaultSize.Width)
	sty := pn.p.X.Tick.Label
	step := DefaultSize.Width * 0.85 / vg.Length(len(cats))
	for _, tk := range pn.p.X.Tick.Marker.Ticks(0, 1) {
		if lines := strings.Count(tk.Label, "\n") + 1; lines > 1 && sty.Height(tk.Label) > step*vg.Length(math.Sin(sty.Rotation)) {
			t.Errorf("label %q: %d lines, wider across than the %v between ticks", tk.Label, lines, step)
		}
	}
}
