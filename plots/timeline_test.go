package plots

import (
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

func TestGoldenTimelineWithEventsAndPeriods(t *testing.T) {
	var x, read, write []float64
	for s := 10.0; s <= 600; s += 10 {
		x = append(x, s)
		r, w := 98000.0, 42000.0
		switch {
		case s > 120 && s <= 420: // a host out: fewer hosts serve, resync after
			r, w = 71000, 30000
		case s > 420 && s <= 500:
			r, w = 84000, 36000
		}
		read, write = append(read, r), append(write, w)
	}
	f, err := Timeline([]Series{{Name: "read", X: x, Y: read}, {Name: "write", X: x, Y: write}},
		[]Mark{{120, "host failure esx-04"}, {420, "host return esx-04"}, {540, "setting compression=False"}},
		[]Span{{120, 420, "host failure"}, {420, 500, "resync"}},
		Options{Title: "OLTP through a host failure", XLabel: "scenario time (simulated, virtual clock)", XUnit: "s", YLabel: "IOPS", YUnit: "IOPS", Simulated: true})
	golden(t, "timeline", f, err)
}

func TestTimelineRefusesPeriodsThatEndBeforeTheyStart(t *testing.T) {
	_, err := Timeline([]Series{{Name: "read", X: []float64{1, 2}, Y: []float64{1, 2}}}, nil,
		[]Span{{From: 5, To: 2, Group: "maintenance"}}, Options{})
	if err == nil || !strings.Contains(err.Error(), "no later than its end") {
		t.Fatalf("got %v", err)
	}
}

// TestLabelsOfEventsCloseInTimeKeepApart: labels of events closer than a
// label's height are pushed after one another, each as near its line as
// the ones before it allow; labels far apart stay on their lines.
func TestLabelsOfEventsCloseInTimeKeepApart(t *testing.T) {
	got := labelPositions([]vg.Length{100, 103, 200, 104, 300}, 8)
	want := []vg.Length{100, 108, 200, 116, 300}
	if !slices.Equal(got, want) {
		t.Errorf("labels at %v, want %v", got, want)
	}
}
