package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"starbench/internal/compare"
	"starbench/plots"
)

func compareCmd(st *State, args []string) int {
	fs := newFlagSet("compare")
	opt := compare.Options{}
	var threshold string
	var cells, workloads []string
	var asJSON bool
	var figure string
	fs.StringVar(&threshold, "threshold", "5%", "smallest change that counts, as a percentage (5%) or a fraction (0.05)")
	fs.Float64Var(&opt.Confidence, "confidence", 0.95, "confidence level of the intervals")
	fs.StringArrayVar(&cells, "map-cell", nil, "compare base cell BASE with new cell NEW: 'BASE=>NEW' with the cells' labels (repeatable)")
	fs.StringArrayVar(&workloads, "map-workload", nil, "compare base workload BASE with new workload NEW: BASE=NEW (repeatable)")
	fs.BoolVar(&opt.OtherCampaign, "other-campaign", false, "compare stores of different campaigns, matching cells and workloads by name")
	fs.BoolVar(&opt.Mixed, "mixed", false, "compare simulated with measured results (refused otherwise)")
	fs.BoolVar(&asJSON, "json", false, "write the comparison as JSON to stdout (for CI) instead of a table")
	fs.StringVar(&figure, "figure", "", "also draw the changes with their intervals to this .png, .svg or .pdf file")
	pos, code, done := parseFlags(st, "compare", fs, args)
	if done {
		return code
	}
	paths, err := storeArgs("compare", pos, 2, "two campaign store files, BASE.db NEW.db")
	if err == nil {
		opt.Threshold, err = parseThreshold(threshold)
	}
	if err == nil {
		opt.Cells, err = compare.ParseMap(cells, "=>", "--map-cell")
	}
	if err == nil {
		opt.Workloads, err = compare.ParseMap(workloads, "=", "--map-workload")
	}
	if err != nil {
		return reportUsage(st, usagef("compare", "%v", err))
	}
	ctx := context.Background()
	r, err := compare.Stores(ctx, paths[0], paths[1], opt)
	if err != nil {
		fmt.Fprintf(st.Stderr, "starbench compare: %v\n", err)
		return ExitScriptError
	}
	if asJSON {
		err = compare.WriteJSON(st.Stdout, r)
	} else {
		err = compare.WriteTable(st.Stdout, r)
	}
	if err == nil && figure != "" {
		err = drawComparison(ctx, r, figure)
	}
	if err != nil {
		fmt.Fprintf(st.Stderr, "starbench compare: %v\n", err)
		return ExitScriptError
	}
	if r.Regressed > 0 {
		fmt.Fprintf(st.Stderr, "starbench compare: %d significant regressions\n", r.Regressed)
		return ExitRegressed
	}
	return ExitOK
}

// parseThreshold reads "5%", "5 %" or "0.05".
func parseThreshold(s string) (float64, error) {
	var f float64
	text := strings.TrimSpace(s)
	pct := strings.HasSuffix(text, "%")
	if _, err := fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(text, "%")), &f); err != nil || f < 0 {
		return 0, fmt.Errorf("--threshold %q: want a percentage such as 5%% or a fraction such as 0.05", s)
	}
	if pct {
		f /= 100
	}
	return f, nil
}

func drawComparison(ctx context.Context, r *compare.Result, path string) error {
	fig, err := compare.Figure(r)
	if err != nil {
		return err
	}
	switch filepath.Ext(path) {
	case ".png", ".svg", ".pdf":
	default:
		return fmt.Errorf("--figure %s: want a .png, .svg or .pdf file", path)
	}
	return fig.Save(ctx, path, plots.DefaultSize, 150)
}
