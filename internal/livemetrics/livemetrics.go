// Package livemetrics serves a running campaign's progress and current
// samples in Prometheus' text format (client_golang), so a dashboard such
// as Grafana can follow a campaign that runs for weeks. It implements
// campaign.Observer.
package livemetrics

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"starbench/internal/campaign"
	"starbench/internal/fio"
	"starbench/internal/store"
)

// Exporter holds the metrics of the campaigns a session runs.
type Exporter struct {
	reg *prometheus.Registry

	info, planned, stored, complete *prometheus.GaugeVec
	failed                          *prometheus.CounterVec
	active                          *prometheus.GaugeVec
	elapsed, iops, mbps, lat        *prometheus.GaugeVec
	lastIOPS, lastMBps              *prometheus.GaugeVec
	lastLat, lastP99                *prometheus.GaugeVec

	mu   sync.Mutex
	name string // the campaign running now
}

var _ campaign.Observer = (*Exporter)(nil)

// New returns an exporter with its metrics registered.
func New() *Exporter {
	e := &Exporter{reg: prometheus.NewRegistry()}
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "starbench", Name: name, Help: help}, labels)
		e.reg.MustRegister(g)
		return g
	}
	e.info = gauge("campaign_info", "1 for each campaign this process ran; simulated says whether its results come from the model", "campaign", "simulated")
	e.planned = gauge("campaign_runs", "runs the campaign plans, extra repeats included", "campaign")
	e.stored = gauge("campaign_runs_stored", "runs in the campaign's store, failed ones included", "campaign")
	e.complete = gauge("campaign_complete", "1 once every planned run is stored", "campaign")
	e.failed = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "starbench", Name: "campaign_runs_failed_total",
		Help: "runs that failed in this process"}, []string{"campaign"})
	e.reg.MustRegister(e.failed)
	e.active = gauge("run_active", "1 for the run in flight", "campaign", "cell", "workload", "repeat")
	e.elapsed = gauge("run_elapsed_seconds", "seconds the run in flight has measured, from the workload's progress samples", "campaign")
	e.iops = gauge("run_iops", "IOPS of the run in flight, its latest progress sample", "campaign")
	e.mbps = gauge("run_mbps", "MB/s (10^6 bytes/s) of the run in flight, its latest progress sample", "campaign")
	e.lat = gauge("run_lat_mean_microseconds", "mean latency of the run in flight, its latest progress sample (a measured run's, while it runs, by Little's law; no series when not known)", "campaign")
	e.lastIOPS = gauge("last_run_iops", "IOPS of the last stored run, per direction (all workers)", "campaign", "cell", "workload", "direction")
	e.lastMBps = gauge("last_run_mbps", "MB/s (10^6 bytes/s) of the last stored run, per direction", "campaign", "cell", "workload", "direction")
	e.lastLat = gauge("last_run_clat_mean_microseconds", "mean completion latency (fio's clat) of the last stored run, per direction", "campaign", "cell", "workload", "direction")
	e.lastP99 = gauge("last_run_clat_p99_microseconds", "99th percentile completion latency (fio's clat) of the last stored run, per direction", "campaign", "cell", "workload", "direction")
	return e
}

// CampaignStarted implements campaign.Observer.
func (e *Exporter) CampaignStarted(name string, simulated bool, total, stored int) {
	e.mu.Lock()
	e.name = name
	e.mu.Unlock()
	e.info.WithLabelValues(name, strconv.FormatBool(simulated)).Set(1)
	e.planned.WithLabelValues(name).Set(float64(total))
	e.stored.WithLabelValues(name).Set(float64(stored))
	e.complete.WithLabelValues(name).Set(0)
	e.failed.WithLabelValues(name).Add(0)
}

// RunsAdded implements campaign.Observer.
func (e *Exporter) RunsAdded(n int) { e.planned.WithLabelValues(e.current()).Add(float64(n)) }

// RunStarted implements campaign.Observer.
func (e *Exporter) RunStarted(k store.RunKey) {
	name := e.current()
	e.active.Reset()
	e.active.WithLabelValues(name, k.Cell, k.Workload, strconv.Itoa(k.Repeat)).Set(1)
	for _, g := range []*prometheus.GaugeVec{e.elapsed, e.iops, e.mbps} {
		g.DeleteLabelValues(name)
	}
}

// RunStored implements campaign.Observer.
func (e *Exporter) RunStored(k store.RunKey, res *fio.Result, err error) {
	name := e.current()
	e.active.Reset()
	e.stored.WithLabelValues(name).Inc()
	if err != nil {
		e.failed.WithLabelValues(name).Inc()
		return
	}
	for _, g := range []*prometheus.GaugeVec{e.lastIOPS, e.lastMBps, e.lastLat, e.lastP99} {
		g.Reset()
	}
	for _, r := range res.Aggregate {
		labels := []string{name, k.Cell, k.Workload, r.Direction}
		setIf(e.lastIOPS, labels, r.IOPS)
		setIf(e.lastMBps, labels, r.MBps)
		setIf(e.lastLat, labels, r.LatMeanUs)
		setIf(e.lastP99, labels, r.P99Us)
	}
}

// setIf sets g's series of labels to v when v was measured: a metric the
// run did not measure (NaN) has no series.
func setIf(g *prometheus.GaugeVec, labels []string, v float64) {
	if !math.IsNaN(v) {
		g.WithLabelValues(labels...).Set(v)
	}
}

// Sample implements campaign.Observer.
func (e *Exporter) Sample(s fio.Status) {
	name := e.current()
	e.elapsed.WithLabelValues(name).Set(float64(s.Elapsed))
	e.iops.WithLabelValues(name).Set(s.IOPS)
	e.mbps.WithLabelValues(name).Set(s.MBps)
	if math.IsNaN(s.LatMeanUs) {
		e.lat.DeleteLabelValues(name)
	} else {
		e.lat.WithLabelValues(name).Set(s.LatMeanUs)
	}
}

// CampaignEnded implements campaign.Observer.
func (e *Exporter) CampaignEnded(complete bool) {
	name := e.current()
	e.active.Reset()
	if complete {
		e.complete.WithLabelValues(name).Set(1)
	}
}

func (e *Exporter) current() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.name
}

// Serve listens on addr and serves the metrics at /metrics until the
// returned stop function is called; it returns the address it listens on
// (addr with port 0 picks a free port).
func (e *Exporter) Serve(addr string) (net.Addr, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--metrics-listen %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln) // http.ErrServerClosed once stopped
	}()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	}
	return ln.Addr(), stop, nil
}
