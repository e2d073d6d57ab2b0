package events

import (
	"math"
	"strings"

	"starbench/internal/fio"
)

// Period is a stretch of a measurement during which the cluster was not
// whole or not alone: from an event that starts it to the one that ends it.
type Period struct {
	From, To float64
	// Group is what kind of period it is ("host failure", "disk failure", "maintenance",
	// "snapshot", "second workload", "resync"); Target what it concerns.
	Group, Target string
}

// periodKinds pairs the event kinds that start a period with those that
// end it (docs/events.md).
var periodKinds = []struct{ start, end, group string }{
	{"host_failure", "host_return", "host failure"},
	{"disk_failure", "disk_return", "disk failure"},
	{"maintenance_enter", "maintenance_exit", "maintenance"},
	{"snapshot_create", "snapshot_remove", "snapshot"},
	{"workload_start", "workload_end", "second workload"},
	{"resync_start", "resync_end", "resync"},
	{"consolidation_start", "consolidation_end", "consolidation"},
}

// Periods pairs each starting event with the next ending event of the same
// kind and target; a period still open at the end runs to end.
func Periods(evs []fio.Event, end float64) []Period {
	var out []Period
	open := map[[2]string]int{} // (group, target) -> index in out
	for _, e := range evs {
		for _, k := range periodKinds {
			key := [2]string{k.group, e.Target}
			switch e.Kind {
			case k.start:
				if _, ok := open[key]; !ok {
					open[key] = len(out)
					out = append(out, Period{From: e.AtS, To: math.NaN(), Group: k.group, Target: e.Target})
				}
			case k.end:
				if i, ok := open[key]; ok {
					out[i].To = e.AtS
					delete(open, key)
				}
			}
		}
	}
	for i := range out {
		if math.IsNaN(out[i].To) {
			out[i].To = math.Max(end, out[i].From)
		}
	}
	return out
}

// Label is how an event reads on a figure: its kind in words and its
// target (a setting: what was set).
func Label(e fio.Event) string {
	what := e.Target
	if e.Kind == "setting" && e.Detail != "" {
		what = e.Detail
	}
	return strings.TrimSpace(strings.ReplaceAll(e.Kind, "_", " ") + " " + what)
}
