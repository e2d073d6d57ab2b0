package report

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"starbench/internal/fio"
	"starbench/plots"
)

// Figure is one image of the report, embedded so the HTML file stands alone.
type Figure struct {
	Title string
	// Path is the image file relative to the report ("" for figures the
	// report draws itself, which only the HTML shows).
	Path    string
	DataURI template.URL
}

var mediaTypes = map[string]string{".png": "image/png", ".svg": "image/svg+xml"}

// maxFigureBytes keeps one runaway image from making the report unusable.
const maxFigureBytes = 16 << 20

// CollectFigures returns the PNG and SVG images among paths (the files a
// session wrote; other files are skipped), as embeddable figures titled by
// their file names and linked relative to dir.
func CollectFigures(dir string, paths []string) ([]Figure, error) {
	var out []Figure
	for _, path := range paths {
		mt, ok := mediaTypes[strings.ToLower(filepath.Ext(path))]
		if !ok {
			continue
		}
		info, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if info.Size() > maxFigureBytes {
			return nil, fmt.Errorf("figure %s is %d MB; embed at most %d MB (save it smaller or at a lower dpi)", path, info.Size()>>20, maxFigureBytes>>20)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = path // outside the output directory: linked as it is
		}
		out = append(out, Figure{Title: figureTitle(rel), Path: filepath.ToSlash(rel), DataURI: dataURI(mt, b)})
	}
	return out, nil
}

// figureTitle turns "figures/wwt_4k-iops.png" into "wwt 4k iops".
func figureTitle(rel string) string {
	name := strings.TrimSuffix(filepath.Base(rel), filepath.Ext(rel))
	return strings.NewReplacer("_", " ", "-", " ").Replace(name)
}

func dataURI(mediaType string, b []byte) template.URL {
	return template.URL("data:" + mediaType + ";base64," + base64.StdEncoding.EncodeToString(b))
}

// maxOverviewCells is the most cells the overview chart shows legibly.
const maxOverviewCells = 24

// Overview draws mean IOPS (reads and writes together) per cell and
// workload with the repeats' standard deviation, as a PNG figure. It
// returns false when there is nothing to draw or too many cells to read.
func Overview(ctx context.Context, c *Campaign) (Figure, bool, error) {
	var cells []string
	for _, cell := range c.Cells {
		cells = append(cells, cell.Label)
	}
	if len(c.Stats) == 0 || len(cells) > maxOverviewCells {
		return Figure{}, false, nil
	}
	type sums struct{ mean, variance float64 }
	total := map[[2]string]*sums{}
	for _, s := range c.Stats {
		if s.Direction == fio.TotalDirection {
			continue // it repeats the directions' IOPS
		}
		k := [2]string{s.Cell, s.Workload}
		if total[k] == nil {
			total[k] = &sums{}
		}
		total[k].mean += s.MeanIOPS
		total[k].variance += s.StdIOPS * s.StdIOPS
	}
	var series []plots.Series
	for _, w := range c.Workloads {
		s := plots.Series{Name: w, Y: make([]float64, len(cells)), Err: make([]float64, len(cells))}
		drawn := false
		for i, cell := range cells {
			if t := total[[2]string{cell, w}]; t != nil {
				s.Y[i], s.Err[i], drawn = t.mean, math.Sqrt(t.variance), true
			}
		}
		if drawn {
			series = append(series, s)
		}
	}
	categories := slices.Clone(cells)
	if len(c.Factors) > 0 {
		for i, cell := range c.Cells {
			categories[i] = levelsLabel(c.Factors, cell.Levels)
		}
	}
	title := "Mean IOPS per cell and workload (± std of repeats)"
	fig, err := plots.Bars(categories, series, plots.Options{Title: title, YLabel: "IOPS", YUnit: "IOPS", Simulated: c.Simulated})
	if err != nil {
		return Figure{}, false, err
	}
	var buf bytes.Buffer
	if err := fig.Write(ctx, &buf, "png", plots.DefaultSize, 150); err != nil {
		return Figure{}, false, err
	}
	return Figure{Title: title, DataURI: dataURI("image/png", buf.Bytes())}, true, nil
}

// levelsLabel is a cell's levels in factor order: "raid5 / True / 25g".
func levelsLabel(factors []string, levels map[string]string) string {
	parts := make([]string, len(factors))
	for i, f := range factors {
		parts[i] = levels[f]
	}
	return strings.Join(parts, " / ")
}

// LoadCurves draws, for each workload of a campaign with load factors,
// mean IOPS against mean latency with one curve per configuration (the
// levels of the other factors) through its loads, each point labelled with
// its load levels: the throughput-latency ("hockey stick") curve a load
// sweep is run for. Mixed workloads are drawn by their total row.
func LoadCurves(ctx context.Context, c *Campaign) ([]Figure, error) {
	if len(c.Load) == 0 {
		return nil, nil
	}
	var out []Figure
	for _, w := range c.Workloads {
		dir := curveDirection(c.Stats, w)
		var series []plots.Series
		index := map[string]int{}
		for _, s := range c.Stats {
			if s.Workload != w || s.Direction != dir {
				continue
			}
			var config, load []string
			for _, f := range c.Factors {
				if slices.Contains(c.Load, f) {
					load = append(load, f+"="+s.Levels[f])
				} else {
					config = append(config, s.Levels[f])
				}
			}
			name := cmp.Or(strings.Join(config, " / "), w)
			i, ok := index[name]
			if !ok {
				i = len(series)
				index[name] = i
				series = append(series, plots.Series{Name: name})
			}
			cv := &series[i]
			cv.X, cv.XErr = append(cv.X, s.MeanIOPS), append(cv.XErr, s.StdIOPS)
			cv.Y, cv.Labels = append(cv.Y, s.MeanLatUs), append(cv.Labels, strings.Join(load, " "))
		}
		if len(series) == 0 {
			continue
		}
		title := fmt.Sprintf("IOPS against latency over %s: %s (%s)", strings.Join(c.Load, ", "), w, dir)
		fig, err := plots.Hockey(series, plots.Options{Title: title, XLabel: "IOPS", XUnit: "IOPS",
			YLabel: "mean completion latency", YUnit: "µs", Simulated: c.Simulated})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", title, err)
		}
		var buf bytes.Buffer
		if err := fig.Write(ctx, &buf, "png", plots.DefaultSize, 150); err != nil {
			return nil, err
		}
		out = append(out, Figure{Title: title, DataURI: dataURI("image/png", buf.Bytes())})
	}
	return out, nil
}

// curveDirection is the direction a workload's curve follows: its total
// when it mixes directions, else its one direction.
func curveDirection(stats []Stat, workload string) string {
	dir := ""
	for _, s := range stats {
		if s.Workload != workload {
			continue
		}
		if s.Direction == fio.TotalDirection {
			return s.Direction
		}
		if dir == "" {
			dir = s.Direction
		}
	}
	return dir
}
