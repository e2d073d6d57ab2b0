package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// WriteMarkdown writes c as Markdown; figures are linked by their relative
// paths (Markdown viewers do not show embedded images reliably).
func WriteMarkdown(w io.Writer, c *Campaign, figures []Figure, now time.Time) error {
	v := newView(c, figures, now)
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }

	p("# %s\n\n", mdText(v.Name))
	if v.Simulated {
		p("> **SIMULATED**: every number and figure in this report comes from starbench's queueing model%s%s, not from measurements on a cluster.%s\n\n",
			optional(" (", v.Model, ")"), optional(" of testbed ", v.Testbed), optional(" What each answer rests on: `", v.Sensitivity(), "`."))
	} else {
		p("> **MEASURED**: results of fio runs on a real cluster%s.\n\n", optional(" (target ", v.Target, ")"))
	}
	p("starbench campaign report, generated %s.\n\n## Summary\n\n", v.Generated)
	p("- Results: %s\n- Status: %s\n- Runs: %d ok, %d failed\n", v.Kind(), v.Status(), v.OK, v.Failed)
	p("- Matrix: %d cells%s x %d workloads x %d repeats\n", len(v.Cells), optional(" (", strings.Join(v.Factors, " x "), ")"), len(v.Workloads), v.Repeats)
	p("%s%s%s- Started: %s\n%s\n", optional("- Testbed: ", v.Testbed, "\n"), optional("- Model: ", v.Model, "\n"),
		optional("- Target: ", v.Target, "\n"), v.CreatedAt, optional("- Completed: ", v.CompletedAt, "\n"))
	if over := v.PeakOver(); over != "" {
		p("Load factors (%s) are not ranked: each configuration is compared at its peak over them (the HTML report draws IOPS against latency along them).\n\n", over)
	}
	if len(v.Highlights) > 0 {
		table(b, []string{"workload", "direction", "best cell", "IOPS", "worst cell", "IOPS", "best vs worst"}, len(v.Highlights), func(i int) []string {
			h := v.Highlights[i]
			return []string{h.Workload, h.Direction, h.Best.Cell, number(h.Best.MeanIOPS), h.Worst.Cell, number(h.Worst.MeanIOPS), h.Gain()}
		})
	}

	p("## Plan\n\n")
	plans := 0
	for _, s := range v.Sessions {
		if s.Plan == "" {
			continue
		}
		if len(v.Sessions) > 1 {
			p("### Session %d%s, %s\n\n", s.ID, optional(" (testbed ", s.Testbed, ")"), s.StartedAt)
		}
		p("```\n%s\n```\n\n", strings.TrimRight(s.Plan, "\n"))
		plans++
	}
	if plans == 0 {
		p("No session recorded a plan.\n\n")
	}

	p("## Results\n\nMean of the repeats per cell; CV is the repeats' standard deviation of IOPS over their mean. %s\n\n", unitsNote)
	for _, t := range v.Tables {
		p("### %s\n\n", mdText(t.Workload))
		head := append(append([]string{}, v.Factors...), "direction", "n", "IOPS", "± std", "MB/s", "p99 clat", "CV", "flagged")
		table(b, head, len(t.Stats), func(i int) []string {
			s := t.Stats[i]
			var row []string
			for _, f := range v.Factors {
				row = append(row, s.Levels[f])
			}
			flag := ""
			if s.Flagged {
				flag = "yes"
			}
			return append(row, s.Direction, strconv.Itoa(s.N), number(s.MeanIOPS), number(s.StdIOPS), number(s.MeanMBps),
				latency(s.MeanP99Us), percent(s.CV), flag)
		})
	}
	if len(v.Tables) == 0 {
		p("No successful runs yet.\n\n")
	}
	if len(v.FailedRuns) > 0 {
		p("### Failed runs\n\n")
		table(b, []string{"run", "error"}, len(v.FailedRuns), func(i int) []string {
			return []string{v.FailedRuns[i].Key(), v.FailedRuns[i].Error}
		})
	}

	writeHCIBenchMarkdown(p, b, v)

	p("## Figures\n\n")
	for _, f := range figures {
		p("![%s](%s)\n\n", mdText(f.Title), f.Path)
	}
	if len(figures) == 0 {
		p("No figure files.\n\n")
	}

	p("## Repeat spread\n\n")
	if v.Spread.Pairs > 0 {
		p("%d results with two or more repeats: median CV %s, largest %s; %d above the threshold.\n\n",
			v.Spread.Pairs, percent(v.Spread.MedianCV), percent(v.Spread.MaxCV), len(v.Spread.Flagged))
	} else {
		p("No result has two repeats yet: no spread to show.\n\n")
	}

	p("## Bottlenecks\n\n")
	if len(v.Bottleneck) > 0 {
		table(b, []string{"cell", "workload", "what limited it"}, len(v.Bottleneck), func(i int) []string {
			bn := v.Bottleneck[i]
			return []string{bn.Cell, bn.Workload, strings.Join(bn.Notes, "; ")}
		})
	} else {
		p("The data plane reported no bottlenecks.\n\n")
	}

	p("## Warnings\n\n")
	if len(v.Warnings) > 0 {
		table(b, []string{"note", "runs", "for example"}, len(v.Warnings), func(i int) []string {
			w := v.Warnings[i]
			return []string{w.Text, strconv.Itoa(w.Count), strings.Join(w.Runs, "; ")}
		})
	} else {
		p("No warnings: no run exceeded a physical bound of the testbed.\n\n")
	}

	p("## Provenance\n\n")
	if len(v.DataPlane) > 0 {
		p("Data plane: %s.\n\n", mdText(strings.Join(v.DataPlane, "; ")))
	}
	for _, s := range v.Sessions {
		ended := s.EndedAt
		if ended == "" {
			ended = "(running or killed)"
		}
		p("### Session %d: %s\n\n", s.ID, s.Status)
		p("- Script: `%s`\n- Time: %s to %s\n- Target: %s%s\n- starbench: %s\n- fio: %s\n", s.Script, s.StartedAt, ended,
			s.Target, optional(", testbed ", s.Testbed), s.ToolVersion, s.FioVersion)
		p("%s%s%s", optional("- Model: ", s.ModelVersion, "\n"), optional("- vCenter: ", s.VCenterVersion, "\n"), optional("- ESXi: ", s.ESXi, "\n"))
		sets := "none"
		if len(s.Sets) > 0 {
			var parts []string
			for _, set := range s.Sets {
				parts = append(parts, "`"+set.Name+"="+set.Value+"`")
			}
			sets = strings.Join(parts, " ")
		}
		p("- --set: %s\n\n", sets)
		if len(s.Files) > 0 {
			table(b, []string{"file", "bytes", "sha256"}, len(s.Files), func(i int) []string {
				f := s.Files[i]
				return []string{f.Path, strconv.FormatInt(f.Bytes, 10), f.SHA256}
			})
		}
	}
	return b.Flush()
}

// table writes a Markdown table of n rows.
func table(w io.Writer, head []string, n int, row func(int) []string) {
	line := func(cells []string) {
		for i := range cells {
			cells[i] = mdText(cells[i])
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	line(append([]string{}, head...))
	sep := make([]string, len(head))
	for i := range sep {
		sep[i] = "---"
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(sep, "|"))
	for i := range n {
		line(row(i))
	}
	fmt.Fprintln(w)
}

// mdText escapes what would break a table cell or start markup.
var mdText = strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`).Replace

// optional returns the parts joined when value (parts[1]) is not empty.
func optional(parts ...string) string {
	if len(parts) < 2 || parts[1] == "" {
		return ""
	}
	return strings.Join(parts, "")
}
