package builtins

import (
	"fmt"
	"math"
	"testing"

	"starbench/internal/campaign"
	"starbench/internal/fio"
)

// TestRunFramesStoreAsTheirTable: the result a campaign stores of fio.run's
// frame, taken from the runs behind it, is the one it would read from the
// frame's table: measured and simulated rows, missing latencies, job names,
// several repeats; and the table, built only when read, is ResultFrame's.
func TestRunFramesStoreAsTheirTable(t *testing.T) {
	nan := math.NaN()
	measured := []*fio.Result{
		{Rows: []fio.Row{{Job: "a", Worker: "w1", Disk: "sdb", Direction: "read", IOPS: 10, MBps: 1, LatMeanUs: 5, P99Us: nan, Errors: 2}},
			Aggregate: []fio.Row{{Job: "a", Direction: "read", IOPS: 10, MBps: 1, LatMeanUs: 5, P50Us: 4, P95Us: 6, P99Us: 7, P999Us: 8}}},
		{Rows: []fio.Row{{Worker: "w1", Disk: "sdb", Direction: "write", IOPS: 3}},
			Aggregate: []fio.Row{{Worker: "all", Direction: "write", IOPS: 3, LatMeanUs: nan}}},
	}
	simulated := []*fio.Result{{Simulated: true,
		Rows:      []fio.Row{{Worker: "w1", Disk: "disk1", Direction: "read", IOPS: 5}, {Worker: "w2", Disk: "disk1", Direction: "read", IOPS: 5, Simulated: true}},
		Aggregate: []fio.Row{{Direction: "read", IOPS: 10, Simulated: true}}}}
	for _, tc := range []struct {
		runs      []*fio.Result
		simulated bool
	}{{measured, false}, {simulated, true}, {simulated, false}, {measured, true}} {
		df, err := ResultFrame(tc.runs...)
		if err != nil {
			t.Fatal(err)
		}
		notes := []string{"a note"}
		want, wantErr := campaign.ResultOf(frameRecords(NewFrameWithNotes(df, notes)), tc.simulated, false, notes)
		frame := newRunFrame(notes, tc.runs)
		got, gotErr := resultOf(frame, tc.simulated)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Errorf("simulated=%v:\nfrom the runs  %+v, %v\nfrom the table %+v, %v", tc.simulated, got, gotErr, want, wantErr)
		}
		// The table, built when first read, is the runs' ResultFrame.
		if got, want := frame.DataFrame(), df; got.Err != nil || fmt.Sprint(got.Names(), got.Records()) != fmt.Sprint(want.Names(), want.Records()) {
			t.Errorf("simulated=%v: the frame's table\n%v (%v)\nwant\n%v", tc.simulated, got, got.Err, want)
		}
	}
}
