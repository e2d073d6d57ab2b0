package cli

import (
	"cmp"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"starbench/internal/atomicfile"
	"starbench/internal/model"
	"starbench/internal/store"
	"starbench/internal/table"
	"starbench/internal/testbed"
)

// moves is the least elasticity said to move an answer: a parameter 10 %
// off moves it by half a percent.
const moves = 0.05

// sensitivityCmd runs a script's campaigns on the simulated testbed and
// says what each simulated answer rests on: every model parameter moved a
// step either way, one at a time, with each run's elasticity to it and the
// kind of source its value has (model.Elasticities).
func sensitivityCmd(st *State, args []string) int {
	fs := newFlagSet("sensitivity")
	var bed, csvPath string
	var sets []string
	var step float64
	var top int
	fs.StringVar(&bed, "testbed", "", "the simulated testbed: a shipped name or a JSON profile (default: the script's own)")
	fs.StringArrayVar(&sets, "set", nil, "script arg name=value, as for starbench run")
	fs.Float64Var(&step, "step", 10, "how far each parameter moves either way, in percent")
	fs.IntVar(&top, "top", 3, "the parameters named for each run, those its answer moves with most")
	fs.StringVar(&csvPath, "csv", "", "also write every run's elasticity to every parameter to this CSV file (testbed, run, answer, answer_value, parameter, value, source, elasticity)")
	pos, code, done := parseFlags(st, "sensitivity", fs, args)
	if done {
		return code
	}
	path, err := scriptArg("sensitivity", pos)
	switch {
	case err != nil:
	case !(step > 0 && step < 100):
		err = usagef("sensitivity", "--step %g: want a percentage above 0 and below 100, such as 10", step)
	case top < 1:
		err = usagef("sensitivity", "--top %d: want at least 1", top)
	}
	var given map[string]string
	if err == nil {
		given, err = parseSets("sensitivity", sets)
	}
	if err != nil {
		return reportUsage(st, err)
	}
	if bed != "" {
		if _, err := testbed.Load(bed); err != nil {
			fmt.Fprintf(st.Stderr, "starbench sensitivity: %v\n", err)
			return ExitUsage
		}
	}
	return runInterruptible(st, "sensitivity", func(ctx context.Context) error {
		return sensitivity(ctx, st, path, bed, given, 1+step/100, top, csvPath)
	})
}

// answerRun is a run of a simulated campaign whose answer is followed, by
// its campaign and key.
type answerRun struct {
	campaign string
	key      store.RunKey
	o        *observed
}

// sensitivity runs script on the simulator (on testbed bed, or the ones
// it picks) and prints, testbed by testbed, what each run's answer rests
// on, each parameter moved a factor step either way; with a csvPath it
// also writes every elasticity there.
func sensitivity(ctx context.Context, st *State, script, bed string, sets map[string]string, step float64, top int, csvPath string) error {
	dir, err := os.MkdirTemp("", "starbench-sensitivity-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(st.Stderr, "sensitivity: running %s on the simulator to learn each run's input\n", script)
	seen, err := runSimulated(ctx, script, bed, sets, dir, func(string) bool { return true })
	if err != nil {
		return err
	}
	order, err := cellOrder(ctx, dir)
	if err != nil {
		return err
	}
	byTestbed := map[string][]answerRun{}
	profiles := map[string]*testbed.Profile{}
	stretches := 0
	for _, c := range slices.Sorted(maps.Keys(seen)) {
		for _, k := range slices.SortedFunc(maps.Keys(seen[c]), inCampaignOrder(order[c])) {
			o := seen[c][k]
			if o.solves > 1 {
				stretches++
				continue
			}
			byTestbed[o.profile.Name] = append(byTestbed[o.profile.Name], answerRun{c, k, o})
			profiles[o.profile.Name] = o.profile
		}
	}
	switch {
	case len(seen) == 0:
		return fmt.Errorf("%s ran no campaign (campaign.new(...).run()): no run's answer to follow", script)
	case len(byTestbed) == 0:
		return fmt.Errorf("the model solves each of the %d campaign runs of %s in several stretches (events, jobs of different lengths), which no one input stands for: no answer to follow", stretches, script)
	}
	var rows [][]string // the CSV's
	for _, name := range slices.Sorted(maps.Keys(byTestbed)) {
		s, err := printSensitivity(ctx, st.Stdout, profiles[name], byTestbed[name], step, top, len(seen) > 1)
		if err != nil {
			return err
		}
		rows = append(rows, elasticityRows(name, s)...)
	}
	if csvPath != "" {
		if err := writeCSV(csvPath, []string{"testbed", "run", "answer", "answer_value", "parameter", "value", "source", "elasticity"}, rows); err != nil {
			return err
		}
		fmt.Fprintf(st.Stderr, "sensitivity: wrote %s\n", csvPath)
	}
	if stretches > 0 {
		fmt.Fprintf(st.Stdout, "left out: %d runs the model solves in several stretches (jobs of different lengths, events), which no one input stands for\n", stretches)
	}
	return nil
}

// cellOrder is each simulated campaign's cells in the order it ran them,
// read from the stores under dir.
func cellOrder(ctx context.Context, dir string) (map[string]map[string]int, error) {
	stores, _ := filepath.Glob(filepath.Join(dir, "*.db"))
	order := map[string]map[string]int{}
	for _, db := range stores {
		s, err := store.OpenReadOnly(ctx, db)
		if err != nil {
			return nil, err
		}
		info, err := s.Info(ctx)
		var cells []store.Cell
		if err == nil {
			cells, err = s.Cells(ctx)
		}
		s.Close()
		if err != nil {
			return nil, err
		}
		order[info.Name] = map[string]int{}
		for i, c := range cells {
			order[info.Name][c.Label] = i
		}
	}
	return order, nil
}

// printSensitivity writes what the answers of runs on profile p rest on
// (writeParams, writeRestsOn), each distinct input solved once; named
// puts each run's campaign before its name.
func printSensitivity(ctx context.Context, w io.Writer, p *testbed.Profile, runs []answerRun, step float64, top int, named bool) (model.Sensitivity, error) {
	var distinct []answerRun
	var in []model.AnswerRun
	for _, r := range runs {
		if slices.ContainsFunc(distinct, func(d answerRun) bool { return d.o.sameInput(r.o) }) {
			continue // a repeat
		}
		name := r.key.Cell + " / " + r.key.Workload
		if named {
			name = r.campaign + ": " + name
		}
		distinct = append(distinct, r)
		in = append(in, model.AnswerRun{Name: name, In: r.o.in, BufferFill: r.o.fill})
	}
	s, err := model.Elasticities(ctx, p, in, step)
	if err != nil {
		return s, err
	}
	fmt.Fprintf(w, "testbed %s (simulated, %s): %d runs, %d distinct; each answer's elasticity to each model parameter moved %.0f %% either way (+1: the answer grows in proportion, -1: in inverse proportion); an answer is the run's I/Os a second, or its mean latency where a rate holds it\n",
		p.Name, model.Version, len(runs), len(in), 100*(step-1))
	if note := model.UncalibratedNote(p); note != "" {
		fmt.Fprintln(w, note)
	}
	writeParams(w, s)
	writeRestsOn(w, s, top)
	fmt.Fprintln(w)
	return s, nil
}

// elasticityRows are the CSV rows of s, the runs on testbed bed: a row a
// run and parameter.
func elasticityRows(bed string, s model.Sensitivity) [][]string {
	var rows [][]string
	for i, run := range s.Runs {
		answer := "iops"
		if s.Latency[i] {
			answer = "latency_us"
		}
		for k, name := range s.Names {
			q := s.Params[k]
			rows = append(rows, []string{bed, run, answer, formatFloat(s.Answers[i]), name, formatFloat(q.Value), q.Kind(), formatFloat(s.Of[i][k])})
		}
	}
	return rows
}

// writeCSV writes a CSV file of head and rows, whole or not at all.
func writeCSV(path string, head []string, rows [][]string) error {
	return atomicfile.Write(path, func(f io.Writer) error {
		w := csv.NewWriter(f)
		w.Write(head)
		w.WriteAll(rows)
		return w.Error()
	})
}

// formatFloat is v in the fewest digits that read back as v.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// writeParams writes each parameter that moves some answer by at least
// moves: its value and kind of source, how many answers it moves, the
// median and the largest elasticity and whose; then those that move none.
func writeParams(w io.Writer, s model.Sensitivity) {
	fmt.Fprintf(w, "\n%-32s %12s  %-14s %6s %8s %8s  %s\n", "parameter", "value", "source", "moves", "median", "largest", "in")
	type row struct {
		k               int
		moved           int
		median, largest float64
		where           string
	}
	var rows []row
	var still []string
	for k, name := range s.Names {
		r := row{k: k}
		es := make([]float64, len(s.Of))
		for i := range s.Of {
			es[i] = s.Of[i][k]
			if math.Abs(es[i]) >= moves {
				r.moved++
			}
			if math.Abs(es[i]) > math.Abs(r.largest) {
				r.largest, r.where = es[i], s.Runs[i]
			}
		}
		if r.moved == 0 {
			still = append(still, name)
			continue
		}
		slices.Sort(es)
		r.median = es[len(es)/2]
		rows = append(rows, r)
	}
	slices.SortStableFunc(rows, func(a, b row) int { return cmp.Compare(math.Abs(b.largest), math.Abs(a.largest)) })
	for _, r := range rows {
		fmt.Fprintf(w, "%-32s %12s  %-14s %6s %+8.2f %+8.2f  %s\n", s.Names[r.k], paramValue(s.Params[r.k].Value), s.Params[r.k].Kind(),
			fmt.Sprintf("%d/%d", r.moved, len(s.Of)), r.median, r.largest, r.where)
	}
	fmt.Fprintf(w, "%d parameters move no answer by %.0f %% or more of their own move: %s\n", len(still), 100*moves, strings.Join(still, ", "))
}

// writeRestsOn writes each distinct run's answer and the top parameters it
// moves with most (at least moves), and how many answers move most with an
// assumption.
func writeRestsOn(w io.Writer, s model.Sensitivity, top int) {
	fmt.Fprintf(w, "\nwhat each answer rests on (the %d parameters it moves with most):\n", top)
	restsOnAssumption := map[string]int{}
	for i, a := range s.Answers {
		answer := table.Thousands(int(math.Round(a))) + " I/Os a second"
		if s.Latency[i] {
			answer = table.Thousands(int(math.Round(a))) + " us mean latency"
		}
		ks := s.Top(i, top, moves)
		var parts []string
		for _, k := range ks {
			parts = append(parts, fmt.Sprintf("%s %+.2f (%s)", s.Names[k], s.Of[i][k], s.Params[k].Kind()))
		}
		if len(parts) == 0 {
			parts = []string{"no model parameter (the workload and the hardware set it)"}
		} else if k := ks[0]; s.Params[k].Kind() == "assumption" {
			restsOnAssumption[s.Names[k]]++
		}
		fmt.Fprintf(w, "  %s: %s; %s\n", s.Runs[i], answer, strings.Join(parts, ", "))
	}
	if n := sumOf(restsOnAssumption); n > 0 {
		var which []string
		worlds := false
		for _, name := range slices.Sorted(maps.Keys(restsOnAssumption)) {
			which = append(which, fmt.Sprintf("%s %d", name, restsOnAssumption[name]))
			worlds = worlds || slices.Contains(worldParams["ESA"], name) || slices.Contains(worldParams["OSA"], name)
		}
		fmt.Fprintf(w, "\n%d of %d answers move most with an assumption (%s); docs/model.md (\"Parameters and sources\") says what each rests on.\n", n, len(s.Of), strings.Join(which, ", "))
		if worlds {
			fmt.Fprintf(w, "The calibration fixes each of vSAN's software ceilings as worlds x cycles, not either alone: starbench split writes the testbed with other worlds and their cycles refitted to it (docs/model.md, \"Sensitivity to the worlds-and-cycles split\"), scripts/vsan_worlds.star counts the worlds on a real cluster, and starbench fit fits the costs to a campaign measured there.\n")
		}
	}
}

// paramValue is a parameter's value as a profile reads best: whole
// numbers grouped by thousands, others to four figures.
func paramValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return table.Thousands(int(v))
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// sumOf is the sum of m's counts.
func sumOf(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
