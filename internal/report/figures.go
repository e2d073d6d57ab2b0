package report

import (
	"bytes"
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
