package model

import (
	"fmt"
	"math"

	"starbench/internal/fio"
	"starbench/internal/testbed"
)

// phase is a stretch of a run in one regime of the model.
type phase struct {
	from, to float64 // seconds since the run began, ramp included
	dirs     [2]Direction
}

// span is a run laid out in time: its phases, the ramp before the measured
// window and the window's end.
type span struct {
	phases     []phase
	ramp, end  float64
	readBack   float64 // seconds from the start when verify's read-back began; 0 without one
	burst      float64 // seconds from the start at OSA's burst rate
	bufferNote string
}

// writeBuffer is the state of OSA's write buffers that outlives a run:
// bytes waiting for destage in each disk group (hosts are symmetric).
type writeBuffer struct {
	fill float64
}

// add fills the buffers with bytes written to them, all disk groups
// together, up to the destage threshold (the elevators keep pace from
// there): what a fill of the disks leaves.
func (buf *writeBuffer) add(p *testbed.Profile, bytes float64) {
	groups := float64(p.Hosts * p.Storage.DiskGroups)
	if groups == 0 || bytes <= 0 {
		return
	}
	buf.fill = math.Min(destageLimit(p), buf.fill+bytes/groups)
}

// full is the share of each disk group's write buffer holding data.
func (buf writeBuffer) full(p *testbed.Profile) float64 {
	return buf.fill / WriteBufferBytes(p)
}

// destageLimit is the bytes in a disk group's write buffer at which the
// elevator starts keeping pace with the writes: the destage threshold.
func destageLimit(p *testbed.Profile) float64 {
	return p.Model.WriteBufferDestageThreshold.Value * WriteBufferBytes(p)
}

// WriteBufferBytes is one OSA disk group's write buffer in bytes: its
// cache device, at most the release's limit.
func WriteBufferBytes(p *testbed.Profile) float64 {
	limit := p.Model.WriteBufferMaxGB7.Value
	if releaseAtLeast(p.VSANRelease, 8, 0) {
		limit = p.Model.WriteBufferMaxGB8.Value
	}
	return math.Min(p.Storage.Cache.CapacityGB, limit) * 1e9
}

// runSeconds is how long fio runs a job after its ramp: runtime when time
// based, else until each job has moved its size (or the disk's), the ramp's
// I/O included, capped by runtime; sooner when a steady-state criterion (ss,
// ss_dur) stops it.
func runSeconds(job *fio.Job, disks []fio.Disk, mbps float64) float64 {
	t := movingSeconds(job, disks, mbps)
	// A steady-state criterion stops the job once fio can judge it: the
	// model's regime is steady from the start (see the option's note).
	if ramp, dur, ok, _ := steadyWindow(job); ok && (t == 0 || ramp+dur < t) {
		t = ramp + dur
	}
	return t
}

// movingSeconds is how long a job runs by its runtime, or moving what its
// extent says (size, offset, offset_increment, io_size, loops, stopped
// early by number_ios) at mbps; 0 when nothing bounds it. A time-based job runs its runtime,
// number_ios or not (fio 3.33: number_ios=100 with time_based and
// runtime=3 did 50,127 I/Os in 3 s).
func movingSeconds(job *fio.Job, disks []fio.Disk, mbps float64) float64 {
	if job.TimeBased && job.RuntimeSec > 0 {
		return float64(job.RuntimeSec)
	}
	sh, err := readJob(job)
	if err != nil {
		return 0 // Solve read the same job and said what is wrong
	}
	ioBytes := sh.meanIO()
	moved := 0.0
	for _, d := range disks {
		moved += sh.extent.moved(float64(d.SizeBytes), ioBytes, job.NumJobs)
	}
	t := math.Inf(1)
	if mbps > 0 && moved > 0 {
		// What the ramp moves counts toward the size (fio 3.33: size=8m
		// at rate_iops=1000 with ramp_time=1 measures 1,047 of its 2,048
		// I/Os).
		// verify_backlog's read-backs come on top of the size.
		t = math.Max(0, moved*(1+sh.readBackBytes)/(mbps*1e6)-float64(job.RampSec))
	}
	if job.RuntimeSec > 0 {
		t = math.Min(t, float64(job.RuntimeSec))
	}
	if math.IsInf(t, 1) {
		return 0
	}
	return t
}

// layOut places a solved run of one job in time and moves the write
// buffers on (see bufferBurst).
func layOut(p *testbed.Profile, buf *writeBuffer, out *Output, job *fio.Job, disks []fio.Disk) span {
	ramp := float64(job.RampSec)
	end := ramp + runSeconds(job, disks, out.Read.MBps+out.Write.MBps)
	if out.Burst != nil {
		end = ramp + throughBurst(job, disks, end-ramp, out.Read.MBps+out.Write.MBps, out.Burst.Read.MBps+out.Burst.Write.MBps, burstRoom(p, buf, out))
	}
	burst := bufferBurst(p, buf, out, end)
	var burstDirs [2]Direction
	if out.Burst != nil {
		burstDirs = [2]Direction{out.Burst.Read, out.Burst.Write}
	}
	sp := jobSpan(ramp, end, [2]Direction{out.Read, out.Write}, burstDirs, burst)
	if burst > ramp && burst < end {
		sp.bufferNote = fmt.Sprintf("OSA write buffers absorb writes at %.0f MB/s for the first %.0f s of the measurement, until %.0f %% full; then %.0f MB/s as the elevators keep pace",
			out.Burst.Write.MBps, burst-ramp, 100*p.Model.WriteBufferDestageThreshold.Value, out.Write.MBps)
	}
	return sp
}

// bufferBurst is how long, from the start of a run lasting end seconds,
// OSA's writes go at the burst rate: while the disk groups' write buffers
// fill to the destage threshold; the elevators must keep pace after. It
// moves the buffers' fill on; a run without writes lets the elevators
// drain them at write_buffer_idle_destage of the capacity tier's write
// rate.
func bufferBurst(p *testbed.Profile, buf *writeBuffer, out *Output, end float64) float64 {
	groups := float64(p.Hosts * p.Storage.DiskGroups)
	if groups == 0 {
		return 0
	}
	if out.Burst == nil || out.BufferBytesPerSec <= 0 {
		if out.Write.IOPS == 0 && buf.fill > 0 {
			_, wr := deviceRates(p.Storage.Capacity)
			buf.fill = math.Max(0, buf.fill-p.Model.WriteBufferIdleDestage.Value*float64(p.Storage.CapacityPerGroup)*wr*end)
		}
		return 0
	}
	limit := destageLimit(p)
	burst := math.Min(burstRoom(p, buf, out), end)
	buf.fill = math.Min(limit, buf.fill+out.BufferBytesPerSec/groups*burst)
	return burst
}

// burstRoom is how long writes at out's rates go at the burst's rate
// before the disk groups' write buffers reach the destage threshold: 0
// where they do not fill them.
func burstRoom(p *testbed.Profile, buf *writeBuffer, out *Output) float64 {
	groups := float64(p.Hosts * p.Storage.DiskGroups)
	if groups == 0 || out.Burst == nil || out.BufferBytesPerSec <= 0 {
		return 0
	}
	limit := destageLimit(p)
	return math.Max(0, (limit-buf.fill)/(out.BufferBytesPerSec/groups))
}

// throughBurst is how long a job runs after its ramp when it runs t
// seconds at steady MB/s (runSeconds) but its first room seconds from its
// start go at burst MB/s, OSA's write buffers absorbing its writes: a job
// that moves its size gets there sooner; one bound by its runtime, or
// time based, runs its time.
func throughBurst(job *fio.Job, disks []fio.Disk, t, steady, burst, room float64) float64 {
	if !sizeBound(job, disks, t, steady) {
		return t
	}
	ramp := float64(job.RampSec)
	return math.Max(0, atBurst(ramp+t, burst/steady, room)-ramp)
}

// sizeBound says whether a job that runs t seconds after its ramp at
// steady MB/s (runSeconds) ends by moving what its extent says, rather
// than at its runtime or steady state.
func sizeBound(job *fio.Job, disks []fio.Disk, t, steady float64) bool {
	if job.TimeBased || steady <= 0 || t <= 0 || job.RuntimeSec > 0 && t >= float64(job.RuntimeSec)*(1-1e-12) {
		return false
	}
	return t >= movingSeconds(job, disks, steady)*(1-1e-12) // not stopped early by a steady-state criterion
}

// jobSpan is one job's run in time: the burst's figures for the first
// burst seconds, the steady ones after.
func jobSpan(ramp, end float64, steady, burstDirs [2]Direction, burst float64) span {
	sp := span{ramp: ramp, end: end}
	burst = math.Min(burst, end)
	sp.burst = max(burst, 0)
	if burst > 0 {
		sp.phases = append(sp.phases, phase{0, burst, burstDirs})
	}
	if burst < end || end == 0 {
		sp.phases = append(sp.phases, phase{burst, end, steady})
	}
	return sp
}

// over combines the phases within [a, b): throughput averaged over the
// time, latencies (percentiles too) weighted by I/Os.
func (sp span) over(a, b float64) [2]Direction {
	var out [2]Direction
	dt := b - a
	if dt <= 0 {
		return out
	}
	for dir := range out {
		var ios, bytes, lat, p50, p95, p99, p999 float64
		for _, ph := range sp.phases {
			t := math.Min(b, ph.to) - math.Max(a, ph.from)
			if t <= 0 {
				continue
			}
			d := ph.dirs[dir]
			n := d.IOPS * t
			ios += n
			bytes += d.MBps * t
			lat += n * d.LatMeanUs
			p50 += n * d.P50Us
			p95 += n * d.P95Us
			p99 += n * d.P99Us
			p999 += n * d.P999Us
		}
		if ios == 0 {
			continue
		}
		out[dir] = Direction{IOPS: ios / dt, MBps: bytes / dt, LatMeanUs: lat / ios, P50Us: p50 / ios, P95Us: p95 / ios, P99Us: p99 / ios, P999Us: p999 / ios}
	}
	return out
}

// sampleInterval is the length of one sample: a second, or longer so that a
// run has at most about a hundred. Measured runs have up to 600, but the
// model's figures hold still between its transitions, which a hundred
// resolve: more would only grow a sweep's store and time.
func sampleInterval(measured float64) float64 {
	return math.Max(1, math.Round(measured/100))
}

// measured is the job's figures as fio reports them, over its measured
// window (after its ramp). With verify's read-back each direction is over
// the time it moved (fio 3.33, backend.c: once the job's I/O is done each
// direction it moved counts that time, then reads count the verify
// pass's too): writes over the job's own I/O, reads over both where the
// job read, else over the read-back.
func (sp span) measured() [2]Direction {
	if sp.readBack == 0 {
		return sp.over(sp.ramp, sp.end)
	}
	out := sp.over(sp.ramp, sp.readBack)
	from := sp.ramp
	if out[read].IOPS == 0 {
		from = sp.readBack
	}
	out[read] = sp.over(from, sp.end)[read]
	return out
}

// until is the span cut t seconds from its start.
func (sp span) until(t float64) span {
	cut := sp
	cut.phases = nil
	for _, ph := range sp.phases {
		if ph.from < t || ph.from == 0 {
			ph.to = math.Min(ph.to, t)
			cut.phases = append(cut.phases, ph)
		}
	}
	cut.end = math.Min(sp.end, t)
	return cut
}

// own is the job's own I/O: its span before verify's read-back.
func (sp span) own() span {
	if sp.readBack == 0 {
		return sp
	}
	return sp.until(sp.readBack)
}

// samples are the measured window in fio's per-interval shape, each
// interval ending TS seconds after the measurement began (the ramp is not
// logged, as in fio); the last ends with the window, a tail under half an
// interval joining the interval before, as measured samples do.
func (sp span) samples(job string) []fio.Sample {
	measured := sp.end - sp.ramp
	if measured <= 0 {
		return nil
	}
	dt := sampleInterval(measured)
	var out []fio.Sample
	for t, to := 0.0, 0.0; t < measured-1e-9; t = to {
		to = t + dt
		if measured-to < dt/2 {
			to = measured
		}
		dirs := sp.over(sp.ramp+t, sp.ramp+to)
		for dir, name := range [2]string{"read", "write"} {
			d := dirs[dir]
			if d.IOPS == 0 {
				continue
			}
			out = append(out, fio.Sample{Job: job, Direction: name, TS: to, IOPS: d.IOPS, MBps: d.MBps, LatMeanUs: d.LatMeanUs, P99Us: d.P99Us})
		}
	}
	return out
}
