package fio

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"math"
	"slices"
	"testing"
	"time"
)

// TestRunLiveRate: a run someone follows reports fio's live rate every
// second from the servers' ETAs, in the units of the result, with Little's
// law's latency for jobs at a fixed depth; its rows still name each
// worker, and its last status is the result.
func TestRunLiveRate(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 2, 2)
	job := &Job{Name: "r", RW: "randread", BlockSize: 4096, NumJobs: 2, RuntimeSec: 4, TimeBased: true}
	var seen []Status
	res, err := (&Runner{}).Run(context.Background(), l.Workers, one(job), func(s Status) { seen = append(seen, s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) < 2 {
		t.Fatalf("statuses %+v: want live ones before the result", seen)
	}
	final, live := seen[len(seen)-1], seen[:len(seen)-1]
	if iops, _ := res.Totals(); final.IOPS != iops || !(final.LatMeanUs > 0) {
		t.Errorf("last status %+v, want the result's %.0f IOPS and its mean latency", final, iops)
	}
	var rates []float64
	for _, s := range live {
		if s.Elapsed > final.Elapsed {
			t.Fatalf("live status %+v after the run", s)
		}
		if s.IOPS == 0 {
			continue // a job's last moments: running, its I/O done
		}
		if perIO := s.MBps * 1e6 / s.IOPS; math.Abs(perIO-4096) > 0.02*4096 {
			t.Errorf("live status %+v: %.0f bytes an I/O, want 4096 (bandwidth in the result's MB/s)", s, perIO)
		}
		// psync keeps one I/O in flight a job: 2 workers x 2 disks x 2
		// clones, when all run.
		if n := s.LatMeanUs * s.IOPS / 1e6; !(n > 0.5 && n < 8.5) || math.Abs(n-math.Round(n)) > 1e-6 {
			t.Errorf("live status %+v: latency x IOPS = %g I/Os in flight, want a whole number up to 8", s, n)
		}
		rates = append(rates, s.IOPS)
	}
	slices.Sort(rates)
	if med := rates[len(rates)/2]; med < final.IOPS/3 || med > final.IOPS*3 {
		t.Errorf("live IOPS %v, the run's %.0f: want the same order", rates, final.IOPS)
	}
	seenWorker := map[string]bool{}
	for _, r := range res.Rows {
		seenWorker[r.Worker] = true
	}
	if len(seenWorker) != 2 {
		t.Errorf("rows name workers %v, want both", seenWorker)
	}
	if !slices.ContainsFunc(res.Artifacts, func(a Artifact) bool { return a.Name == "fio-relays.txt" }) {
		t.Error("no fio-relays.txt artifact mapping relays to workers")
	}
}

// TestRunLiveRateOpenLoop: a rate-limited job keeps fewer I/Os in flight
// than its depth, so the live latency is not known.
func TestRunLiveRateOpenLoop(t *testing.T) {
	t.Parallel()
	l := startLocal(t, 1, 1)
	job := &Job{Name: "r", RW: "randread", BlockSize: 4096, IOEngine: "libaio", IODepth: 8, RateIOPS: 2000, RuntimeSec: 3, TimeBased: true}
	var seen []Status
	if _, err := (&Runner{}).Run(context.Background(), l.Workers, one(job), func(s Status) { seen = append(seen, s) }); err != nil {
		t.Fatal(err)
	}
	moving := 0
	for _, s := range seen[:len(seen)-1] {
		if !math.IsNaN(s.LatMeanUs) {
			t.Errorf("live status %+v of a rate-limited job: want no latency", s)
		}
		if s.IOPS > 0 {
			moving++
		}
	}
	if moving == 0 || !(seen[0].IOPS > 0) {
		t.Errorf("statuses %+v: want the first with I/O (none while jobs set up)", seen)
	}
}

// A job that reaps completions in batches (iodepth_batch_complete_min
// above 1) lets its queue drain between fills: its depth is not fixed.
func TestBatchedCompletionsHaveNoFixedDepth(t *testing.T) {
	for _, c := range []struct {
		least string
		want  []int
	}{
		{"", []int{8, 8}},
		{"1", []int{8, 8}},
		{"0", []int{8, 8}},
		{"4", nil},
	} {
		job := &Job{Name: "r", RW: "randread", IOEngine: "libaio", IODepth: 8, NumJobs: 2}
		if c.least != "" {
			job.Options = []Option{{Key: "iodepth_batch_complete", Value: c.least}} // fio's alias
		}
		if got := threadDepths(job); !slices.Equal(got, c.want) {
			t.Errorf("iodepth_batch_complete=%q: depths %v, want %v", c.least, got, c.want)
		}
	}
}

// frame is one command of fio's protocol.
func frame(opcode uint16, flags uint32, payload []byte) []byte {
	h := make([]byte, netHeaderLen)
	le := binary.LittleEndian
	le.PutUint16(h[0:], 97)
	le.PutUint16(h[2:], opcode)
	le.PutUint32(h[4:], flags)
	le.PutUint64(h[8:], 0xfeed)
	le.PutUint32(h[16:], uint32(len(payload)))
	return append(h, payload...)
}

// etaPayload is a jobs_eta as a server sends it, with a run string.
func etaPayload(running uint32, kibps [3]uint64, iops [3]uint32, elapsed uint64) []byte {
	p := make([]byte, 168)
	le := binary.LittleEndian
	le.PutUint32(p[0:], running)
	for d := range 3 {
		le.PutUint64(p[16+8*d:], 999999) // m_rate: a rate limit, not the rate
		le.PutUint64(p[64+8*d:], kibps[d])
		le.PutUint32(p[88+4*d:], 777) // m_iops
		le.PutUint32(p[112+4*d:], iops[d])
	}
	le.PutUint64(p[128:], elapsed)
	return append(p, "RRrr\x00"...)
}

// TestRelayPassesEveryByte: the relay passes the server's commands to the
// client unchanged and reads the ETA among them, also when fio splits it
// over several commands.
func TestRelayPassesEveryByte(t *testing.T) {
	eta1 := etaPayload(4, [3]uint64{400, 100, 0}, [3]uint32{100, 25, 0}, 3)
	eta2 := etaPayload(2, [3]uint64{8, 0, 0}, [3]uint32{2, 0, 0}, 4)
	var stream []byte
	stream = append(stream, frame(5, 0, []byte("text the client prints\x00"))...)
	stream = append(stream, frame(netCmdETA, 0, eta1)...)
	stream = append(stream, frame(6, netFlagMore, bytes.Repeat([]byte{1}, 1024))...)
	stream = append(stream, frame(6, 0, []byte{2, 3})...)
	stream = append(stream, frame(netCmdETA, netFlagMore, eta2[:100])...)
	stream = append(stream, frame(netCmdETA, 0, eta2[100:])...)
	var got []eta
	r := &relay{onETA: func(e eta) { got = append(got, e) }}
	var out bytes.Buffer
	if err := r.down(&out, bytes.NewReader(stream)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), stream) {
		t.Errorf("the client got %d bytes, the server sent %d: want them unchanged", out.Len(), len(stream))
	}
	if len(got) != 2 || got[0].running != 4 || got[0].kibps != [3]uint64{400, 100, 0} || got[0].iops != [3]uint32{100, 25, 0} || got[0].elapsedS != 3 ||
		got[1].running != 2 || got[1].kibps[0] != 8 || got[1].iops[0] != 2 {
		t.Errorf("ETAs read %+v", got)
	}
	if err := r.down(io.Discard, bytes.NewReader(stream[:30])); err == nil {
		t.Error("a command cut short passed as a clean end")
	}
}

// TestLiveRateSums: the live rate sums the servers' latest ETAs, leaves out
// stale and idle ones, and knows the I/Os in flight only where each
// server's jobs say it.
func TestLiveRateSums(t *testing.T) {
	now := time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC)
	l := &liveRate{latest: make([]eta, 3), depths: [][]int{{4, 4}, {1, 8}, {2}}}
	l.set(0, eta{running: 1, kibps: [3]uint64{1000, 0, 0}, iops: [3]uint32{250, 0, 0}, receiveAt: now})
	l.set(1, eta{running: 2, kibps: [3]uint64{0, 500, 0}, iops: [3]uint32{0, 125, 0}, receiveAt: now})
	l.set(2, eta{running: 1, iops: [3]uint32{99, 0, 0}, receiveAt: now.Add(-staleETA - 1)})
	iops, mbps, lat, ok := l.status(now)
	// Server 0: 1 job of depth 4 running; server 1: both jobs, 1 + 8.
	if !ok || iops != 375 || math.Abs(mbps-1500*1024/1e6) > 1e-9 || math.Abs(lat-13.0/375*1e6) > 1e-6 {
		t.Errorf("status %v %v %v %v, want 375 IOPS, %v MB/s, %v us", iops, mbps, lat, ok, 1500*1024/1e6, 13.0/375*1e6)
	}
	l.set(1, eta{running: 1, iops: [3]uint32{0, 125, 0}, receiveAt: now})
	if _, _, lat, _ := l.status(now); !math.IsNaN(lat) {
		t.Errorf("one of two jobs of different depths running: latency %v, want NaN", lat)
	}
	l.set(0, eta{receiveAt: now})
	l.set(1, eta{receiveAt: now})
	if _, _, _, ok := l.status(now); ok {
		t.Error("no job running, yet a live status")
	}
	// Before any I/O, running jobs are setting up: no status; after it, a
	// running job at 0 IOPS is one.
	fresh := &liveRate{latest: make([]eta, 1), depths: [][]int{{1}}}
	fresh.set(0, eta{running: 1, receiveAt: now})
	if _, _, _, ok := fresh.status(now); ok {
		t.Error("a live status before the first I/O")
	}
	fresh.set(0, eta{running: 1, iops: [3]uint32{5, 0, 0}, receiveAt: now})
	fresh.status(now)
	fresh.set(0, eta{running: 1, receiveAt: now})
	if iops, _, _, ok := fresh.status(now); !ok || iops != 0 {
		t.Errorf("a stall after I/O began: %v IOPS, %v; want a status of 0 IOPS", iops, ok)
	}
}

// TestETAAndOutstandingAtTheEdges: a jobs_eta of exactly the fields read
// is enough; an ETA as old as the limit still counts; the I/Os in flight
// are every job's when all run, running x depth when the depths agree,
// unknown otherwise.
func TestETAAndOutstandingAtTheEdges(t *testing.T) {
	p := etaPayload(3, [3]uint64{1, 2, 3}, [3]uint32{4, 5, 6}, 7)
	if e, err := parseETA(p[:136]); err != nil || e.running != 3 || e.elapsedS != 7 || e.iops != [3]uint32{4, 5, 6} {
		t.Errorf("136 bytes: %+v %v", e, err)
	}
	if _, err := parseETA(p[:135]); err == nil {
		t.Error("135 bytes read as an ETA")
	}
	now := time.Date(2026, 12, 4, 7, 0, 0, 0, time.UTC)
	l := &liveRate{latest: []eta{{running: 1, iops: [3]uint32{10, 0, 0}, receiveAt: now.Add(-staleETA)}}, depths: [][]int{{1}}}
	if iops, _, lat, ok := l.status(now); !ok || iops != 10 || lat != 1e5 {
		t.Errorf("an ETA %v old: %v IOPS, %v us, %v; want 10 IOPS and 100000 us", staleETA, iops, lat, ok)
	}
	l.latest[0].iops = [3]uint32{}
	if _, _, lat, ok := l.status(now); !ok || !math.IsNaN(lat) {
		t.Errorf("a running job at 0 IOPS: latency %v (%v), want NaN", lat, ok)
	}
	for _, tc := range []struct {
		depths  []int
		running int
		want    float64
	}{
		{[]int{4, 8}, 2, 12}, {[]int{4, 4, 4}, 2, 8}, {[]int{4, 4, 4}, 3, 12}, {[]int{4, 8}, 1, math.NaN()},
		{[]int{2}, 1, 2}, {nil, 1, math.NaN()}, {[]int{8, 4, 4}, 2, math.NaN()},
	} {
		got := serverOutstanding(tc.depths, tc.running)
		if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("serverOutstanding(%v, %d) = %v, want %v", tc.depths, tc.running, got, tc.want)
		}
	}
}
