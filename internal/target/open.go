package target

import (
	"context"
	"fmt"
	"os"
	"time"

	"starbench/internal/fio"
	"starbench/internal/model"
	"starbench/internal/sim"
	"starbench/internal/testbed"
	"starbench/internal/vsphere"
)

// Options say which target to open.
type Options struct {
	// Kind is the target ("" = Embedded).
	Kind Kind
	// Testbed names the simulated cluster, a shipped profile or a JSON file
	// ("" = testbed.Default); embedded and local targets only.
	Testbed string
	// Env reads the govc environment (GOVC_URL, ...) for the vcenter target;
	// nil means the process environment.
	Env func(string) string
	// VSphere, when set, is used instead of Env to reach the vcenter target.
	VSphere *vsphere.Options
	// Latency is added to every call of an embedded simulator (for benchmarks).
	Latency time.Duration
	// ExactModel turns off the model's seeded run-to-run noise, so repeats
	// of a simulated run give identical numbers (tests of the model's
	// mechanisms). By default repeats spread like real runs, reproducibly.
	ExactModel bool
	// Observe, when set, is shown every cell the embedded model solves
	// (model.WithObserver): starbench fit reads each run's input with it.
	Observe model.ObserveFunc
}

// noiseSeed seeds the embedded model's run-to-run noise: the same script
// gives the same simulated numbers on every machine.
const noiseSeed = 1

// Open opens the target of opts and returns it with the function that closes it.
func Open(ctx context.Context, opts Options) (*Target, func(), error) {
	switch opts.Kind {
	case "", Embedded, Local:
		return openSimulated(ctx, opts)
	case VCenter:
		return openVCenter(ctx, opts)
	}
	return nil, nil, fmt.Errorf("unknown target %q: want %q, %q or %q", opts.Kind, Embedded, VCenter, Local)
}

// openSimulated starts the embedded simulator of the testbed and connects
// to it: in process on the embedded target, over HTTPS (trusting the
// simulator's own certificate) on the local one.
func openSimulated(ctx context.Context, opts Options) (*Target, func(), error) {
	kind := opts.Kind
	if kind == "" {
		kind = Embedded
	}
	name := opts.Testbed
	if name == "" {
		name = testbed.Default
	}
	p, err := testbed.Load(name)
	if err != nil {
		return nil, nil, err
	}
	s, err := sim.Start(sim.Options{Testbed: p, Latency: opts.Latency})
	if err != nil {
		return nil, nil, fmt.Errorf("starting the simulated testbed %s: %w", p.Name, err)
	}
	pass, _ := s.Userinfo().Password()
	vo := vsphere.Options{URL: s.URL.String(), Username: s.Userinfo().Username(), Password: pass, CAPEM: s.CertPEM}
	if kind == Embedded {
		vo.InProcess, vo.Versions = s.InProcess, s
	}
	c, err := vsphere.Connect(ctx, vo)
	if err != nil {
		s.Close()
		return nil, nil, fmt.Errorf("connecting to the simulated testbed %s: %w", p.Name, err)
	}
	t := &Target{Kind: kind, VSphere: c, Testbed: p, Sim: s, Simulated: kind == Embedded}
	if kind == Embedded {
		// The model reads cluster settings and disk policies back through
		// the same API calls the scripts used to set them.
		inv, err := c.Inventory(ctx)
		if err != nil {
			c.Close()
			s.Close()
			return nil, nil, fmt.Errorf("reading the simulated testbed %s: %w", p.Name, err)
		}
		// Host metrics show on each host its idle CPU (the testbed's
		// host_idle_cpu_percent) plus what the model predicts the run
		// costs there (its workers' guests and vSAN, its components'
		// vSAN), and its vSAN traffic; the vSAN
		// performance service its components' I/O, vSAN's CPU and
		// network: the idle figures alone on a host the run leaves alone.
		hosts := make([]string, len(inv.Hosts))
		for i, h := range inv.Hosts {
			hosts[i] = h.Name
		}
		opt := []model.Option{model.WithHostLoad(hosts, func(start, end time.Time, loads map[string]model.HostLoad) {
			for _, h := range hosts {
				l := loads[h]
				l.CPUPercent = min(100, p.Model.HostIdleCPUPercent.Value+l.CPUPercent)
				s.RecordHostLoad(h, start, end, l)
			}
		}), model.WithRunLoad(s.RecordRun), // and vSAN's performance service the run's client view
			model.WithWriteBuffer(s.RecordWriteBuffer)} // and OSA's disk groups' write buffers
		if !opts.ExactModel {
			opt = append(opt, model.WithNoise(noiseSeed))
		}
		if opts.Observe != nil {
			opt = append(opt, model.WithObserver(opts.Observe))
		}
		t.DataPlane = model.NewPlane(p, c, opt...)
		return t, func() { c.Close(); s.Close() }, nil
	}
	// Local: every simulated worker VM gets its own fio server on loopback;
	// their measured results are checked against the testbed's bounds.
	lp := NewLocalPlane("")
	t.DataPlane = model.BoundsChecked(lp, p)
	return t, func() { lp.Close(); c.Close(); s.Close() }, nil
}

// openVCenter connects to the vCenter of opts.VSphere or of the govc environment.
func openVCenter(ctx context.Context, opts Options) (*Target, func(), error) {
	var vo vsphere.Options
	if opts.VSphere != nil {
		vo = *opts.VSphere
	} else {
		env := opts.Env
		if env == nil {
			env = os.Getenv
		}
		var err error
		if vo, err = vsphere.OptionsFromEnv(env); err != nil {
			return nil, nil, err
		}
	}
	c, err := vsphere.Connect(ctx, vo)
	if err != nil {
		return nil, nil, err
	}
	return &Target{Kind: VCenter, VSphere: c, DataPlane: &fio.Runner{}}, c.Close, nil
}
