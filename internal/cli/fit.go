package cli

import (
	"context"
	"encoding/json"
	"errors"
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
	"starbench/internal/target"
	"starbench/internal/testbed"
)

// fitParams are the model parameters a fit moves unless told otherwise:
// the ones the calibration fits (vSAN's DOM and LSOM cycles, and the
// contention between reads and writes).
var fitParams = []string{"dom_io_cycles", "dom_byte_cycles", "lsom_op_cycles", "lsom_read_byte_cycles", "lsom_write_byte_cycles", "mixed_contention"}

// worldParams are the worlds that run those cycles, by architecture,
// which a fit moves too by default when the runs measured the hosts' CPU:
// the I/Os fix a ceiling only as worlds x cycles, the CPU the cycles.
var worldParams = map[string][]string{"ESA": {"dom_worlds_per_host", "device_worlds"}, "OSA": {"dom_worlds_per_host", "diskgroup_worlds"}}

// idleParam is the CPU a host shows with no load, its own on a real
// cluster, which a fit moves too by default when the runs measured the
// hosts' CPU under loads at least heavyToLight apart.
const (
	idleParam    = "host_idle_cpu_percent"
	heavyToLight = 5
)

// guestParam is the guest's cycles per I/O (fio and the guest's kernel),
// which a fit moves too by default when the runs measured vSAN's part of
// the hosts' CPU beside it: the rest is the guest's.
const guestParam = "fio_io_cycles"

// latencyParam is vSAN's fixed time per I/O, which a fit moves too by
// default when a run a rate holds is fitted: such a run's latency tells it.
const latencyParam = "software_latency_us"

// fitCmd fits a testbed profile's model parameters to campaigns measured
// on a real cluster: it runs each campaign's script on the simulated
// testbed to learn what the model solves for each run, fits the parameters
// to what was measured on every run but those of the cells kept apart,
// reports the error on both, and writes the profile with the fitted
// parameters.
func fitCmd(st *State, args []string) int {
	fs := newFlagSet("fit")
	var bed, out, params string
	var from, sets []string
	var every int
	fs.StringArrayVar(&from, "from", nil, "a campaign store measured on the real cluster (starbench run with GOVC_URL); repeat for several, fitted together")
	fs.StringVar(&bed, "testbed", "", "the profile of the cluster the runs were measured on: a shipped name or a JSON file (its hosts, devices and network as they are)")
	fs.StringArrayVar(&sets, "set", nil, "script arg name=value, for every store's script; by default each measured session's own")
	fs.StringVar(&params, "params", strings.Join(fitParams, ","), "the model parameters to fit, by their names in a profile's model section, comma-separated (by default also vSAN's worlds when the runs measured host CPU or vSAN's worlds' CPU, the hosts' idle CPU when their loads also lie 5 times apart, the guest's cycles when they measured vSAN's CPU too, and vSAN's fixed time per I/O when a rate holds a run)")
	fs.IntVar(&every, "validate", 3, "keep every Nth cell's runs apart: never fitted, their error reported (0 keeps none)")
	fs.StringVar(&out, "out", "", "the profile to write (default TESTBED-fit.json: my-cluster.json gives my-cluster-fit.json)")
	pos, code, done := parseFlags(st, "fit", fs, args)
	if done {
		return code
	}
	var path string
	var err error
	if len(pos) > 0 {
		path, err = scriptArg("fit", pos)
	}
	missing := missingStore(from)
	switch {
	case err != nil:
	case len(from) == 0:
		err = usagef("fit", "give --from: the store of the campaign measured on the real cluster")
	case path != "" && len(from) > 1:
		err = usagef("fit", "a SCRIPT goes with one store; without it each store's own copy of its script runs")
	case bed == "":
		err = usagef("fit", "give --testbed: the profile of the cluster the runs were measured on (a shipped name or a JSON file)")
	case every < 0 || every == 1:
		err = usagef("fit", "--validate %d: want 0 (keep no cell apart) or 2 or more (every Nth cell's runs kept apart)", every)
	case hasRepeats(strings.Split(params, ",")):
		err = usagef("fit", "--params %s names a parameter twice", params)
	case missing != "":
		err = usagef("fit", "--from: %s", noStore(missing))
	}
	var given map[string]string
	if err == nil {
		given, err = parseSets("fit", sets)
	}
	if err != nil {
		return reportUsage(st, err)
	}
	p, err := testbed.Load(bed)
	if err != nil {
		fmt.Fprintf(st.Stderr, "starbench fit: %v\n", err)
		return ExitUsage
	}
	if out == "" { // my-cluster.json gives my-cluster-fit.json, in the working directory
		out = strings.TrimSuffix(filepath.Base(bed), ".json") + "-fit.json"
	}
	f := fitting{st: st, script: path, testbed: bed, profile: p, every: every, names: strings.Split(params, ","), defaultNames: !fs.Changed("params")}
	return runInterruptible(st, "fit", func(ctx context.Context) error { return f.run(ctx, from, given, out) })
}

// missingStore is the first of paths that is no store file, "" when all are.
func missingStore(paths []string) string {
	for _, p := range paths {
		if !isStoreFile(p) {
			return p
		}
	}
	return ""
}

// fitting is one starbench fit.
type fitting struct {
	st      *State
	script  string
	testbed string
	profile *testbed.Profile
	every   int
	names   []string
	// defaultNames: --params not given, so the worlds and the guest's
	// cycles join the names when the runs measured what tells them apart
	// (addCPUParams).
	defaultNames bool
}

// measured is what a measured store holds for a fit: its path and
// campaign, the session that ran the script and the script to run again
// (the one given, or the store's own copy under dir), the cells in order,
// each run's figures and the hosts whose metrics it read.
type measured struct {
	path, campaign string
	session        store.SessionRecord
	script         string
	cells          []string
	figures        map[store.RunKey]store.RunFigure
	hosts          []string
}

func (f *fitting) run(ctx context.Context, from []string, given map[string]string, out string) error {
	dir, err := os.MkdirTemp("", "starbench-fit-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var runs []model.FitRun
	var loads []float64 // each run's simulated CPU load (pair)
	var skipped, origins []string
	var cluster measured // the first store that read its hosts' metrics
	for i, path := range from {
		m, err := f.readMeasured(ctx, path, filepath.Join(dir, "scripts", strconv.Itoa(i)))
		if err != nil {
			return err
		}
		if err := f.checkHosts(&m, &cluster); err != nil {
			return err
		}
		f.noteShortVSANRuns(m)
		sets := m.session.Sets
		maps.Copy(sets, given)
		seen, simulated, err := f.simulate(ctx, m, sets, filepath.Join(dir, "out", strconv.Itoa(i)))
		if err != nil {
			return err
		}
		r, l, why := f.pair(m, seen, simulated, len(from) > 1)
		if len(r) == 0 {
			return fmt.Errorf("none of the %d measured runs of %s matched a simulated run with one solve: nothing to fit (%s)", len(m.figures), path, strings.Join(why, "; "))
		}
		runs, loads, skipped = append(runs, r...), append(loads, l...), append(skipped, why...)
		origins = append(origins, fmt.Sprintf("campaign %s measured in %s (session of %s)", m.campaign, filepath.Base(path), m.session.StartedAt))
	}
	f.addCPUParams(runs, loads)
	f.addLatencyParam(runs)
	got, err := model.Fit(ctx, f.profile, runs, f.names)
	if err != nil {
		return err
	}
	summary := f.report(runs, got, skipped)
	return f.write(out, strings.Join(origins, ", "), got, summary)
}

// checkHosts checks that m's hosts are the cluster's: no more than the
// profile describes, the same as the other stores'. A store that read
// some of the cluster's hosts only keeps its CPU out of the fit (the
// model's is every host's), and says so.
func (f *fitting) checkHosts(m, cluster *measured) error {
	if len(m.hosts) == 0 {
		return nil
	}
	if len(m.hosts) > f.profile.Hosts {
		return fmt.Errorf("%s measured %d hosts (%s), but %s describes %d: want the profile of the cluster the campaign ran on", m.path, len(m.hosts), strings.Join(m.hosts, ", "), f.profile.Name, f.profile.Hosts)
	}
	if cluster.hosts == nil {
		*cluster = *m
	} else if !isSubset(m.hosts, cluster.hosts) && !isSubset(cluster.hosts, m.hosts) {
		return fmt.Errorf("%s measured hosts %s and %s hosts %s: want stores measured on one cluster, the one %s describes", m.path, strings.Join(m.hosts, ", "), cluster.path, strings.Join(cluster.hosts, ", "), f.profile.Name)
	}
	if len(m.hosts) < f.profile.Hosts {
		fmt.Fprintf(f.st.Stderr, "fit: %s read the CPU of %d of the %d hosts %s describes, and the model's is every host's: its runs' CPU is not fitted (hci.host_cpu reads every host)\n", m.path, len(m.hosts), f.profile.Hosts, f.profile.Name)
		for k, fig := range m.figures {
			fig.CPUPercent = 0
			m.figures[k] = fig
		}
	}
	return nil
}

// vsanSampleSeconds is how often vSAN's performance service keeps a
// sample: a run's own vSAN figures want a sample wholly within it.
const vsanSampleSeconds = 300

// noteShortVSANRuns says how many of m's runs recorded vSAN's CPU or its
// worlds' but lasted under two of the performance service's samples, so
// that theirs may be a sample that also covers the runs beside them.
func (f *fitting) noteShortVSANRuns(m measured) {
	short := 0
	for _, fig := range m.figures {
		if (fig.VSANCPUPercent > 0 || fig.DOMBusyCores > 0 || fig.LSOMBusyCores > 0) && fig.Seconds < 2*vsanSampleSeconds {
			short++
		}
	}
	if short > 0 {
		fmt.Fprintf(f.st.Stderr, "fit: %d runs of %s recorded vSAN's CPU but lasted under %d s: vSAN's performance service keeps a sample every %d s, so theirs may also cover the runs beside them (scripts/fit_sweep.star --set duration=600)\n", short, m.path, 2*vsanSampleSeconds, vsanSampleSeconds)
	}
}

// isSubset says whether every one of xs is in of.
func isSubset(xs, of []string) bool {
	return !slices.ContainsFunc(xs, func(x string) bool { return !slices.Contains(of, x) })
}

// addCPUParams adds vSAN's worlds to the default parameters when a run
// measured the hosts' CPU or vSAN's worlds', the hosts' idle CPU when the
// runs' CPU loads (loads, by run) span a light and a heavy one
// (heavyToLight), and the guest's cycles per I/O when a run measured
// vSAN's part of the CPU too, and says what the CPU does.
func (f *fitting) addCPUParams(runs []model.FitRun, loads []float64) {
	cpu := slices.ContainsFunc(runs, func(r model.FitRun) bool {
		return r.Measured.CPU > 0 || r.Measured.DOMBusy > 0 || r.Measured.LSOMBusy > 0
	})
	vsan := slices.ContainsFunc(runs, func(r model.FitRun) bool { return r.Measured.CPU > 0 && r.Measured.VSANCPU > 0 })
	if !cpu {
		fmt.Fprintf(f.st.Stderr, "fit: no run measured its hosts' CPU (campaign.new(metrics = hci.host_cpu) records it): the I/Os fix vSAN's ceilings only as worlds x cycles, so the worlds stay as they are\n")
		return
	}
	if !f.defaultNames {
		return
	}
	more := worldParams[f.profile.Architecture]
	f.names = append(f.names, more...)
	fmt.Fprintf(f.st.Stderr, "fit: the runs measured their hosts' CPU or vSAN's worlds', which tells vSAN's worlds from their cycles: fitting %s too\n", strings.Join(more, " and "))
	// The idle CPU is what the runs' CPU has in common whatever their
	// load: only runs far apart in load tell it from the cycles.
	var light, heavy float64 = math.Inf(1), 0
	for i, r := range runs {
		if r.Measured.CPU > 0 && !r.Validation {
			light, heavy = min(light, loads[i]), max(heavy, loads[i])
		}
	}
	switch {
	case heavy == 0: // no fit run measured the hosts' CPU, only vSAN's worlds'
	case light*heavyToLight <= heavy:
		f.names = append(f.names, idleParam)
		fmt.Fprintf(f.st.Stderr, "fit: the lightest run's CPU load is %.2g of the heaviest's, which tells the hosts' idle CPU from the load: fitting %s too\n", light/heavy, idleParam)
	default:
		fmt.Fprintf(f.st.Stderr, "fit: the lightest run's CPU load is %.2g of the heaviest's: too close to tell the hosts' idle CPU from the load, so %s stays at %g %% (a run held to a low rate, as scripts/fit_sweep.star's 4k-rand-read-held, tells it)\n", light/heavy, idleParam, f.profile.Model.HostIdleCPUPercent.Value)
	}
	if vsan {
		f.names = append(f.names, guestParam)
		fmt.Fprintf(f.st.Stderr, "fit: the runs measured vSAN's part of the CPU, which tells vSAN's cycles from the guest's: fitting %s too\n", guestParam)
	}
}

// addLatencyParam adds vSAN's fixed time per I/O to the default
// parameters when a fit run is held by a rate: its latency, which its I/Os
// do not carry, is fitted, and tells that time.
func (f *fitting) addLatencyParam(runs []model.FitRun) {
	held := 0
	for _, r := range runs {
		if r.Held && !r.Validation {
			held++
		}
	}
	if held == 0 || !f.defaultNames {
		return
	}
	f.names = append(f.names, latencyParam)
	fmt.Fprintf(f.st.Stderr, "fit: a rate holds %d of the runs, whose latency their I/Os do not carry: fitting their latency, and %s with it\n", held, latencyParam)
}

// readMeasured reads the measured campaign at path: its runs, and the
// script its last session ran, checked against the script given or else
// written under dir from the store's own copies of the files it loaded.
func (f *fitting) readMeasured(ctx context.Context, path, dir string) (measured, error) {
	s, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return measured{}, err
	}
	defer s.Close()
	info, err := s.Info(ctx)
	if err != nil {
		return measured{}, err
	}
	if info.Simulated {
		return measured{}, fmt.Errorf("%s holds simulated runs: a fit wants runs measured on a real cluster (starbench run with GOVC_URL set)", path)
	}
	sessions, err := s.Sessions(ctx)
	if err != nil {
		return measured{}, err
	}
	if len(sessions) == 0 {
		return measured{}, fmt.Errorf("%s records no session, so not which script measured it", path)
	}
	m := measured{path: path, campaign: info.Name, session: sessions[len(sessions)-1], script: f.script}
	if t := target.Kind(m.session.Target); t != target.VCenter {
		return measured{}, fmt.Errorf("%s was measured on target %s: a fit wants runs on a real vSAN cluster (target vcenter, GOVC_URL set); the local target's fio runs on loopback files", path, t)
	}
	if f.script == "" {
		if m.script, err = restoreScript(ctx, s, m.session, dir); err != nil {
			return measured{}, fmt.Errorf("%s: %w", path, err)
		}
	} else {
		mine, err := store.HashFiles([]string{f.script})
		if err != nil {
			return measured{}, err
		}
		i := slices.IndexFunc(m.session.Files, func(file store.File) bool { return file.Path == m.session.Script })
		if i < 0 || m.session.Files[i].SHA256 != mine[0].SHA256 {
			return measured{}, fmt.Errorf("%s is not the script that measured %s (its session ran %s, whose content differs): the simulated runs would not be the measured ones", f.script, path, m.session.Script)
		}
	}
	cells, err := s.Cells(ctx)
	if err != nil {
		return measured{}, err
	}
	for _, c := range cells {
		m.cells = append(m.cells, c.Label)
	}
	if m.figures, err = s.RunFigures(ctx); err != nil {
		return measured{}, err
	}
	if m.hosts, err = s.MeasuredHosts(ctx); err != nil {
		return measured{}, err
	}
	return m, nil
}

// restoreScript writes the files session loaded (the script and what it
// loaded, as the store keeps them) under dir at their paths, and returns
// where the script is.
func restoreScript(ctx context.Context, s *store.Store, session store.SessionRecord, dir string) (string, error) {
	for _, file := range session.Files {
		content, err := s.SessionFile(ctx, session.ID, file.Path)
		if errors.Is(err, store.ErrNoContent) {
			return "", fmt.Errorf("the store keeps only the hashes of the files its script loaded (it was written before starbench kept them): give the script, starbench fit SCRIPT --from STORE")
		}
		if err != nil {
			return "", err
		}
		to := filepath.Join(dir, file.Path) // an absolute path lands under dir too
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(to, content, 0o644); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, session.Script), nil
}

// simulate runs m's script on the simulated testbed without noise, into
// dir, and returns what the model solved for each run of m's campaign and
// each such run's simulated figures.
func (f *fitting) simulate(ctx context.Context, m measured, sets map[string]string, dir string) (map[store.RunKey]*observed, map[store.RunKey]store.RunFigure, error) {
	name := m.campaign
	fmt.Fprintf(f.st.Stderr, "fit: running %s (of %s) on the simulated %s to learn each run's input\n", m.session.Script, m.path, f.profile.Name)
	seen, err := runSimulated(ctx, m.script, f.testbed, sets, dir, func(campaign string) bool { return campaign == name })
	if err != nil {
		return nil, nil, err
	}
	stores, _ := filepath.Glob(filepath.Join(dir, "*.db"))
	simulated := map[store.RunKey]store.RunFigure{}
	for _, db := range stores {
		s, err := store.OpenReadOnly(ctx, db)
		if err != nil {
			return nil, nil, err
		}
		info, err := s.Info(ctx)
		var figures map[store.RunKey]store.RunFigure
		if err == nil && info.Name == name {
			figures, err = s.RunFigures(ctx)
		}
		s.Close()
		if err != nil {
			return nil, nil, err
		}
		maps.Copy(simulated, figures)
	}
	return seen[name], simulated, nil
}

// pair makes a fit run of each measured run whose simulated twin the
// model solved once, with the twin's CPU load (its hosts' CPU above idle);
// the others are skipped, each reason counted.
func (f *fitting) pair(m measured, seen map[store.RunKey]*observed, simulated map[store.RunKey]store.RunFigure, named bool) ([]model.FitRun, []float64, []string) {
	order := map[string]int{} // each cell's place in the campaign
	for i, c := range m.cells {
		order[c] = i
	}
	keys := slices.SortedFunc(maps.Keys(m.figures), inCampaignOrder(order))
	var runs []model.FitRun
	var loads []float64
	idle := f.profile.Model.HostIdleCPUPercent.Value
	why := map[string]int{}
	for _, k := range keys {
		o := seen[k]
		switch {
		case o == nil:
			why["not simulated (the simulated campaign has no such run)"]++
		case o.solves > 1:
			why["solved in several stretches (jobs of different lengths, events): one figure cannot stand for them"]++
		case !(o.figures.IOPS > 0) || !(simulated[k].IOPS > 0):
			why["no simulated I/O"]++
		default:
			name := k.String()
			if named { // runs of several campaigns
				name = m.campaign + ": " + name
			}
			r := model.FitRun{Name: name, In: o.in, BufferFill: o.fill, Held: o.held, Validation: f.every > 0 && order[k.Cell]%f.every == f.every-1}
			r.Scale, r.Measured = sampled(figures(m.figures[k]), figures(simulated[k]), o.figures, idle)
			runs, loads = append(runs, r), append(loads, simulated[k].CPUPercent-idle)
		}
	}
	var skipped []string
	for _, reason := range slices.Sorted(maps.Keys(why)) {
		skipped = append(skipped, fmt.Sprintf("%d runs of %s %s", why[reason], m.campaign, reason))
	}
	return runs, loads, skipped
}

// reported are the figures the report shows of each run beside its I/Os,
// measured and after the fit: its mean latency, which the fit does not
// fit, and its hosts' and vSAN's CPU, which it does where measured.
var reported = []struct {
	head, format string // the column head, and how a value is printed
	fitted       bool
	line         string // what the line of their median errors begins with
	of           func(model.FitFigures) float64
}{
	{"lat us", "%10.0f", false, "mean latency, fitted only where a rate holds the I/Os", func(x model.FitFigures) float64 { return x.LatUs }},
	{"cpu %", "%10.1f", true, "host CPU, fitted", func(x model.FitFigures) float64 { return x.CPU }},
	{"vsan %", "%10.1f", true, "vSAN CPU, fitted", func(x model.FitFigures) float64 { return x.VSANCPU }},
	{"dom cores", "%10.2f", true, "DOM worlds' CPU, fitted", func(x model.FitFigures) float64 { return x.DOMBusy }},
	{"lsom cores", "%10.2f", true, "LSOM worlds' CPU, fitted", func(x model.FitFigures) float64 { return x.LSOMBusy }},
}

// figures are a store's figures of a run as a fit reads them.
func figures(f store.RunFigure) model.FitFigures {
	return model.FitFigures{IOPS: f.IOPS, LatUs: f.LatMeanUs, CPU: f.CPUPercent, VSANCPU: f.VSANCPUPercent, DOMBusy: f.DOMBusyCores, LSOMBusy: f.LSOMBusyCores}
}

// sampled is what the simulated run's samples made of the model's figures
// of it (model.RunFigures), figure by figure (its host CPU above the idle
// CPU the simulator adds), and the measured figures it can be held to: a
// CPU figure the simulated run does not have is not fitted.
func sampled(measured, simulated, modelled model.FitFigures, idle float64) (scale, fitted model.FitFigures) {
	scale.IOPS = simulated.IOPS / modelled.IOPS
	if modelled.LatUs > 0 {
		scale.LatUs = simulated.LatUs / modelled.LatUs
	}
	if load := simulated.CPU - idle; load > 0 && modelled.CPU > 0 {
		scale.CPU = load / modelled.CPU
	} else {
		measured.CPU = 0
	}
	for _, f := range []struct{ simulated, modelled, scale, measured *float64 }{
		{&simulated.VSANCPU, &modelled.VSANCPU, &scale.VSANCPU, &measured.VSANCPU},
		{&simulated.DOMBusy, &modelled.DOMBusy, &scale.DOMBusy, &measured.DOMBusy},
		{&simulated.LSOMBusy, &modelled.LSOMBusy, &scale.LSOMBusy, &measured.LSOMBusy},
	} {
		if *f.simulated > 0 && *f.modelled > 0 {
			*f.scale = *f.simulated / *f.modelled
		} else {
			*f.measured = 0
		}
	}
	return scale, measured
}

// report prints every run's figures before and after the fit, and returns
// the median errors as a sentence.
func (f *fitting) report(runs []model.FitRun, got model.FitOutcome, skipped []string) string {
	w := f.st.Stdout
	fmt.Fprintf(w, "%-48s %-10s %12s %12s %8s %12s %8s", "run", "set", "iops", "before", "error", "after", "error")
	for _, c := range reported {
		fmt.Fprintf(w, " %10s %10s %8s", c.head, "after", "error")
	}
	fmt.Fprintln(w)
	// errs[c][v][a] are the absolute errors of column c (0 the I/Os,
	// then reported's) of the runs fitted (v 0) or kept apart (v 1),
	// before (a 0) and after (a 1) the fit.
	errs := make([][2][2][]float64, 1+len(reported))
	for i, r := range runs {
		set := "fit"
		v := 0
		if r.Validation {
			set, v = "validation", 1
		}
		before, after := got.Before[i].IOPS/r.Measured.IOPS-1, got.After[i].IOPS/r.Measured.IOPS-1
		errs[0][v][0] = append(errs[0][v][0], math.Abs(before))
		errs[0][v][1] = append(errs[0][v][1], math.Abs(after))
		fmt.Fprintf(w, "%-48s %-10s %12.0f %12.0f %+7.1f%% %12.0f %+7.1f%%", r.Name, set, r.Measured.IOPS, got.Before[i].IOPS, 100*before, got.After[i].IOPS, 100*after)
		for j, c := range reported {
			measured := c.of(r.Measured)
			if !(measured > 0) {
				fmt.Fprintf(w, " %10s %10s %8s", "-", "-", "-")
				continue
			}
			before, after := c.of(got.Before[i])/measured-1, c.of(got.After[i])/measured-1
			errs[1+j][v][0] = append(errs[1+j][v][0], math.Abs(before))
			errs[1+j][v][1] = append(errs[1+j][v][1], math.Abs(after))
			fmt.Fprintf(w, " "+c.format+" "+c.format+" %+7.1f%%", measured, c.of(got.After[i]), 100*after)
		}
		fmt.Fprintln(w)
	}
	medians := func(errs [2][2][]float64) []string {
		var parts []string
		for v, name := range []string{"fit", "validation"} {
			if n := len(errs[v][0]); n > 0 {
				parts = append(parts, fmt.Sprintf("%s: %d runs, median error %.1f %% before, %.1f %% after", name, n, 100*median(errs[v][0]), 100*median(errs[v][1])))
			}
		}
		return parts
	}
	parts := medians(errs[0])
	if len(errs[0][1][0]) == 0 {
		parts = append(parts, "no run kept apart for validation (--validate)")
	}
	summary := strings.Join(parts, "; ")
	fmt.Fprintf(w, "\n%s\n", summary)
	for j, c := range reported {
		if parts := medians(errs[1+j]); len(parts) > 0 {
			line := c.line + ": " + strings.Join(parts, "; ")
			fmt.Fprintln(w, line)
			if c.fitted {
				summary += "; " + line
			}
		}
	}
	iopsErrs := errs[0]
	if len(iopsErrs[1][1]) > 0 {
		if fitted, apart := median(iopsErrs[0][1]), median(iopsErrs[1][1]); apart > 0.05 && apart > 2*fitted {
			fmt.Fprintf(w, "the fit does not carry to the runs kept apart (median error %.1f %% there, %.1f %% on the fitted ones): they change something the fitted runs do not load, or the model has no mechanism for; believe the kept-apart figure, and measure more cells like them\n", 100*apart, 100*fitted)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(got.Params)) {
		was, _ := f.profile.Model.Lookup(name)
		fmt.Fprintf(w, "%s: %.4g -> %.4g (x%.3g)\n", name, was.Value, got.Params[name], got.Params[name]/was.Value)
	}
	if len(got.Unmoved) > 0 {
		fmt.Fprintf(w, "left as they were (no fit run moves with them): %s\n", strings.Join(got.Unmoved, ", "))
	}
	for _, s := range skipped {
		fmt.Fprintf(w, "skipped: %s\n", s)
	}
	return summary
}

// write writes the profile with the fitted parameters, each saying where
// it comes from, to out.
func (f *fitting) write(out, origin string, got model.FitOutcome, summary string) error {
	p := *f.profile
	p.Model.Each(func(name string, q *testbed.Param) {
		if v, ok := got.Params[name]; ok {
			*q = testbed.Param{Value: v, Source: fmt.Sprintf("fitted by starbench fit to %s; %s; was %g (%s)", origin, summary, q.Value, q.Source)}
		}
	})
	// Results outside what the fit saw are flagged as extrapolated, as the
	// shipped ranges flag what the calibration table did not sweep.
	m2 := &p.Model
	runs := fmt.Sprintf("the runs starbench fit fitted to (%s)", origin)
	m2.CalibratedMinBlockBytes = testbed.Param{Value: float64(got.MinBlock), Source: runs + " sweep these block sizes"}
	m2.CalibratedMaxBlockBytes = testbed.Param{Value: float64(got.MaxBlock), Source: runs + " sweep these block sizes"}
	m2.CalibratedMinOutstanding = testbed.Param{Value: float64(got.MinOutstanding) / 4, Source: runs + " ran from 4 times this many outstanding I/Os; factor 4 either side"}
	m2.CalibratedMaxOutstanding = testbed.Param{Value: float64(got.MaxOutstanding) * 4, Source: runs + " ran up to a quarter of this many outstanding I/Os; factor 4 either side"}
	p.Name += "-fit"
	p.Description += "; model parameters fitted to a measured campaign (starbench fit)"
	p.Calibration = "starbench fit: " + origin
	data, err := json.MarshalIndent(&p, "", "  ")
	if err == nil {
		_, err = testbed.Parse(data) // what is written loads as a profile
	}
	if err == nil {
		err = atomicfile.Write(out, func(w io.Writer) error {
			_, err := w.Write(append(data, '\n'))
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("writing the profile: %w", err)
	}
	fmt.Fprintf(f.st.Stderr, "fit: wrote %s (starbench run --testbed %s)\n", out, out)
	return nil
}

// hasRepeats says whether a name comes twice in names.
func hasRepeats(names []string) bool {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return true
		}
		seen[n] = true
	}
	return false
}

// median is the middle of xs (the mean of the two middle ones when even).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
