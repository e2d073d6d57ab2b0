package report

import (
	"context"
	_ "embed"
	"html/template"
	"io"
	"path/filepath"
	"strings"
	"time"

	"starbench/internal/atomicfile"
)

//go:embed report.html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"join":    strings.Join,
	"number":  number,
	"percent": percent,
	"latency": latency,
}).Parse(htmlSource))

// WriteHTML writes c as one self-contained HTML page with figures embedded.
func WriteHTML(w io.Writer, c *Campaign, figures []Figure, now time.Time) error {
	return htmlTemplate.Execute(w, newView(c, figures, now))
}

// Files are the reports Write wrote.
type Files struct{ HTML, Markdown string }

// Write reads the store at storePath and writes BASE.html and BASE.md into
// outDir. The HTML embeds an overview chart and the PNG and SVG images among
// figurePaths (the figures the session's script saved); the Markdown links
// those images by their path relative to outDir.
func Write(ctx context.Context, storePath, outDir, base string, figurePaths []string) (Files, error) {
	c, err := Load(ctx, storePath)
	if err != nil {
		return Files{}, err
	}
	figures, err := CollectFigures(outDir, figurePaths)
	if err != nil {
		return Files{}, err
	}
	var drawn []Figure // the report's own, before the script's
	if overview, ok, err := Overview(ctx, c); err != nil {
		return Files{}, err
	} else if ok {
		drawn = append(drawn, overview)
	}
	curves, err := LoadCurves(ctx, c)
	if err != nil {
		return Files{}, err
	}
	all := append(append(drawn, curves...), figures...)
	now := time.Now()
	files := Files{HTML: filepath.Join(outDir, base+".html"), Markdown: filepath.Join(outDir, base+".md")}
	if err := atomicfile.Write(files.HTML, func(w io.Writer) error { return WriteHTML(w, c, all, now) }); err != nil {
		return Files{}, err
	}
	if err := atomicfile.Write(files.Markdown, func(w io.Writer) error { return WriteMarkdown(w, c, figures, now) }); err != nil {
		return Files{}, err
	}
	return files, nil
}
