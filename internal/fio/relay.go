package fio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"slices"
	"sync"
	"time"
)

// A measured run's live rate comes from fio itself. fio's client asks every
// server for its ETA (jobs running, IOPS and bandwidth over the last
// second) about once a second, but with JSON output it prints none of it:
// results and samples arrive only when the run ends. So the client talks to
// each server through a relay on loopback that passes every byte through
// unchanged and reads the servers' ETA replies on the way.

// fio's network protocol (server.h): every command is a little-endian
// header and a payload of pdu_len bytes; a payload too long for one
// command is split over several, all but the last flagged "more".
const (
	netHeaderLen  = 24 // version, opcode, flags, tag, pdu_len, two CRC16s
	netCmdETA     = 9  // FIO_NET_CMD_ETA: a server's reply with its jobs_eta
	netFlagMore   = 1  // FIO_NET_CMD_F_MORE
	netMaxPayload = 64 << 20
)

// eta is what starbench reads of a server's jobs_eta (stat.h): the jobs
// (threads) it runs, and per direction (read, write, trim) the bandwidth
// in KiB/s and the IOPS since its previous ETA.
type eta struct {
	running   int
	kibps     [3]uint64
	iops      [3]uint32
	elapsedS  uint64
	receiveAt time.Time
}

// parseETA reads a jobs_eta payload: nr_running, nr_ramp, nr_pending and
// nr_setting_up (uint32 each), m_rate, t_rate and rate (3 uint64 each),
// m_iops, t_iops and iops (3 uint32 each), a pad, then elapsed_sec.
func parseETA(p []byte) (eta, error) {
	if len(p) < 136 {
		return eta{}, fmt.Errorf("fio's ETA reply has %d bytes; want at least 136", len(p))
	}
	le := binary.LittleEndian
	e := eta{running: int(le.Uint32(p[0:])), elapsedS: le.Uint64(p[128:])}
	for d := range 3 {
		e.kibps[d] = le.Uint64(p[64+8*d:])
		e.iops[d] = le.Uint32(p[112+4*d:])
	}
	return e, nil
}

// relay passes one fio client connection to one server and hands the
// server's ETA replies to onETA.
type relay struct {
	ln     net.Listener
	server string // the worker's fio server, host:port
	onETA  func(eta)

	mu    sync.Mutex
	err   error      // why the relay stopped passing bytes, if not a clean end
	conns []net.Conn // open while it relays
	shut  bool       // close was called

	done chan struct{}
}

// startRelay listens on loopback for fio's client and relays its one
// connection to server.
func startRelay(server string, dial time.Duration, onETA func(eta)) (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the live-rate relay for %s: %w", server, err)
	}
	r := &relay{ln: ln, server: server, onETA: onETA, done: make(chan struct{})}
	go r.serve(dial)
	return r, nil
}

// key is the address fio's client connects to instead of the server.
func (r *relay) key() ClientKey {
	a := r.ln.Addr().(*net.TCPAddr)
	return ClientKey{Host: a.IP.String(), Port: a.Port}
}

// close stops the relay and waits for it; it returns why it failed, if it
// did.
func (r *relay) close() error {
	r.ln.Close()
	r.mu.Lock()
	r.shut = true
	for _, c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func (r *relay) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

func (r *relay) serve(dial time.Duration) {
	defer close(r.done)
	client, err := r.ln.Accept()
	r.ln.Close() // fio's client connects once per run
	if err != nil {
		return
	}
	defer client.Close()
	server, err := net.DialTimeout("tcp", r.server, dial)
	if err != nil {
		r.fail(fmt.Errorf("relaying to fio server %s: %w", r.server, err))
		return
	}
	defer server.Close()
	r.mu.Lock()
	r.conns = []net.Conn{client, server}
	shut := r.shut
	r.mu.Unlock()
	if shut {
		return
	}
	up := make(chan struct{})
	go func() {
		defer close(up)
		if _, err := io.Copy(server, client); err != nil && !errors.Is(err, net.ErrClosed) {
			r.fail(fmt.Errorf("relaying fio's client to server %s: %w", r.server, err))
		}
		server.(*net.TCPConn).CloseWrite()
	}()
	if err := r.down(client, server); err != nil && !errors.Is(err, net.ErrClosed) {
		r.fail(fmt.Errorf("relaying fio server %s to the client: %w", r.server, err))
	}
	client.(*net.TCPConn).CloseWrite()
	<-up
}

// down passes the server's commands to the client one by one, reading the
// ETA replies among them.
func (r *relay) down(client io.Writer, server io.Reader) error {
	header := make([]byte, netHeaderLen)
	var payload, pending []byte
	for {
		if _, err := io.ReadFull(server, header); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		le := binary.LittleEndian
		opcode, flags, n := le.Uint16(header[2:]), le.Uint32(header[4:]), le.Uint32(header[16:])
		if n > netMaxPayload {
			return fmt.Errorf("a command of %d bytes is not fio's protocol", n)
		}
		if cap(payload) < int(n) {
			payload = make([]byte, n)
		}
		payload = payload[:n]
		if _, err := io.ReadFull(server, payload); err != nil {
			return err
		}
		if _, err := client.Write(header); err != nil {
			return err
		}
		if _, err := client.Write(payload); err != nil {
			return err
		}
		if opcode != netCmdETA {
			continue
		}
		pending = append(pending, payload...)
		if flags&netFlagMore != 0 {
			continue
		}
		if e, err := parseETA(pending); err == nil {
			e.receiveAt = time.Now()
			r.onETA(e)
		}
		pending = pending[:0]
	}
}

// liveRate sums the latest ETA of every server into the run's current rate.
type liveRate struct {
	mu     sync.Mutex
	latest []eta
	moving bool // some I/O was seen: before it, jobs are setting up
	// depths holds, per server, the outstanding I/Os each of its fio jobs
	// keeps (iodepth for an asynchronous engine, 1 for a synchronous one);
	// nil when a job's is not known (open loop: rate limits, think time).
	depths [][]int
}

// staleETA is how old a server's ETA may be and still count: fio's client
// asks every 0.9 s, and stops asking a server whose jobs have ended.
const staleETA = 2500 * time.Millisecond

func (l *liveRate) set(i int, e eta) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.latest[i] = e
}

// status sums the servers' latest ETAs at now: IOPS, MB/s, and the mean
// latency by Little's law (outstanding I/Os over IOPS, NaN when the
// outstanding I/Os are not known). ok is false while no job runs, and
// before the first I/O (jobs laying out files are not a stall).
func (l *liveRate) status(now time.Time) (iops, mbps, latUs float64, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	outstanding := 0.0
	for i, e := range l.latest {
		if e.receiveAt.IsZero() || now.Sub(e.receiveAt) > staleETA || e.running == 0 {
			continue
		}
		ok = true
		for d := range 3 {
			iops += float64(e.iops[d])
			mbps += float64(e.kibps[d]) * 1024 / 1e6
		}
		outstanding += serverOutstanding(l.depths[i], e.running)
	}
	latUs = math.NaN()
	if iops > 0 {
		latUs = outstanding / iops * 1e6
		l.moving = true
	}
	return iops, mbps, latUs, ok && l.moving
}

// serverOutstanding is the I/Os a server keeps in flight with running of
// its jobs running: every job's depth when they all run, running times the
// depth when every job has the same; NaN otherwise (which jobs run is not
// in the ETA).
func serverOutstanding(depths []int, running int) float64 {
	if len(depths) == 0 {
		return math.NaN()
	}
	if running == len(depths) {
		sum := 0
		for _, d := range depths {
			sum += d
		}
		return float64(sum)
	}
	for _, d := range depths[1:] {
		if d != depths[0] {
			return math.NaN()
		}
	}
	return float64(running * depths[0])
}

// openLoopOptions make a job keep fewer I/Os in flight than its iodepth,
// or a number that changes as it runs.
var openLoopOptions = []string{"rate", "rate_min", "rate_iops", "rate_iops_min", "thinktime",
	"latency_target", "iodepth_low", "flow"}

// syncEngines complete each I/O before issuing the next: one in flight.
var syncEngines = []string{"", "sync", "psync", "vsync", "pvsync", "pvsync2", "mmap"}

// asyncEngines keep iodepth I/Os in flight.
var asyncEngines = []string{"libaio", "io_uring", "posixaio"}

// threadDepths lists the I/Os each fio job (numjobs clone) of section j
// keeps in flight, or nil when that is not fixed.
func threadDepths(j *Job) []int {
	if j.RateIOPS > 0 || j.RateBytes > 0 || slices.ContainsFunc(openLoopOptions, j.hasRaw) {
		return nil
	}
	if least, ok := j.raw("iodepth_batch_complete_min"); ok && least != "0" && least != "1" {
		return nil // the queue drains by that many before fio fills it again
	}
	depth := 1
	switch {
	case slices.Contains(syncEngines, j.IOEngine):
	case slices.Contains(asyncEngines, j.IOEngine):
		depth = max(j.IODepth, 1)
	default:
		return nil
	}
	out := make([]int, max(j.NumJobs, 1))
	for i := range out {
		out[i] = depth
	}
	return out
}
