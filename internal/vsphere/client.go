// Package vsphere drives vCenter through govmomi: connection, inventory,
// worker deployment, SPBM policies, vSAN cluster settings and host metrics.
// The same calls run against a real vCenter and the embedded simulator.
package vsphere

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/pbm"
	"github.com/vmware/govmomi/performance"
	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/session/keepalive"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vsan"

	"starbench/internal/ledger"
)

// Options say which vCenter to connect to and how.
type Options struct {
	// URL is the SDK URL or host name ("vc.example.com", "https://vc/sdk").
	// Credentials in it are used when Username is empty.
	URL      string
	Username string
	Password string
	// Insecure skips certificate verification; only when asked for explicitly.
	Insecure bool
	// CACerts are PEM files to trust, separated by the OS path-list separator (GOVC_TLS_CA_CERTS).
	CACerts string
	// CAPEM is a PEM certificate to trust, e.g. the embedded simulator's own.
	CAPEM []byte
	// KnownHosts is a file of "host thumbprint" lines (GOVC_TLS_KNOWN_HOSTS).
	KnownHosts string
	// HandshakeTimeout bounds the TLS handshake (0 = the default, 10 s).
	HandshakeTimeout time.Duration
	// Datacenter and Cluster name the inventory to drive ("" = the only one).
	Datacenter string
	Cluster    string
	// Placement is where worker VMs go unless a deployment says otherwise.
	Placement Placement
	// KeepAlive is the idle time between keep-alive calls (0 = 5 minutes).
	KeepAlive time.Duration
	// Retry says how transient faults are retried (zero = DefaultRetry).
	Retry Retry
	// Compliance says how long to wait for disks to comply with a policy.
	Compliance Compliance
	// InProcess, when set, carries the SOAP calls of each SDK path
	// (vim25.Path, pbm.Path, vsan.Path) instead of HTTPS: an embedded
	// simulator serving them in process, in a session of its own, so there
	// is no login. URL, trusted as above, still carries what only HTTP
	// can, such as the file uploads of a template import.
	InProcess func(path string) soap.RoundTripper
	// Versions, when set, say when the state behind the reads may have
	// changed (an embedded simulator): while they stand still, the client
	// answers repeated reads of workers, cluster settings and policies
	// from what it read last.
	Versions Versions
}

// Client is a logged-in vCenter connection.
type Client struct {
	vim        *vim25.Client
	pbm        *pbm.Client
	vsan       soap.RoundTripper // the vSAN health service
	finder     *find.Finder
	dc         *object.Datacenter
	cluster    *object.ClusterComputeResource
	retry      Retry
	compliance Compliance
	place      Placement
	ledger     *ledger.Ledger // nil: changes are not recorded
	keep       *keepalive.HandlerSOAP
	host       string

	mu          sync.Mutex
	policyNames map[string]string // SPBM profile id -> name

	cache    *readCache // reads kept while Versions.Version stands still; nil: none
	vmCache  *readCache // worker reads kept while Versions.VMVersion stands still
	perfOnce sync.Once
	perf     *performance.Manager
}

// Connect logs in to the vCenter of opts and finds its datacenter and cluster.
// The password is used to log in (and again after a session expires) and
// never appears in an error.
func Connect(ctx context.Context, opts Options) (*Client, error) {
	c, err := connect(ctx, opts)
	if err != nil {
		return nil, redact(err, opts)
	}
	return c, nil
}

func connect(ctx context.Context, opts Options) (*Client, error) {
	u, user, err := endpoint(opts)
	if err != nil {
		return nil, err
	}
	sc := soap.NewClient(u, opts.Insecure)
	if err := trust(sc, u, opts); err != nil {
		return nil, err
	}
	if opts.HandshakeTimeout > 0 {
		sc.DefaultTransport().TLSHandshakeTimeout = opts.HandshakeTimeout
	}
	vc, err := vim25.NewClient(ctx, sc)
	if err != nil {
		if untrusted(err) {
			return nil, certificateError(ctx, u.Host, err)
		}
		return nil, fmt.Errorf("cannot reach vCenter at %s: %w", u.Host, err)
	}

	c := &Client{vim: vc, retry: opts.Retry.orDefault(), compliance: opts.Compliance.orDefault(), place: opts.Placement, host: u.Host, policyNames: map[string]string{}}
	if v := opts.Versions; v != nil {
		c.cache, c.vmCache = &readCache{version: v.Version}, &readCache{version: v.VMVersion}
	}
	if opts.InProcess != nil {
		if err := c.connectInProcess(ctx, opts); err != nil {
			return nil, err
		}
		return c, nil
	}
	auth := &reauth{login: func(ctx context.Context) error {
		plain := *vc
		plain.RoundTripper = sc
		return session.NewManager(&plain).Login(ctx, user)
	}}
	idle := opts.KeepAlive
	if idle == 0 {
		idle = 5 * time.Minute
	}
	c.keep = keepalive.NewHandlerSOAP(sc, idle, func() error {
		_, err := session.NewManager(vc).UserSession(context.Background())
		return err
	})
	vc.RoundTripper = &relogin{rt: c.keep, auth: auth}

	if err := auth.login(ctx); err != nil {
		return nil, fmt.Errorf("cannot log in to %s as %q: %w", u.Host, user.Username(), err)
	}
	c.keep.Start()

	pc, err := pbm.NewClient(ctx, vc)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("cannot reach the storage policy service of %s: %w", u.Host, err)
	}
	pc.RoundTripper = &relogin{rt: pc.Client, auth: auth}
	c.pbm = pc
	vsc, err := vsan.NewClient(ctx, vc)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("cannot reach the vSAN service of %s: %w", u.Host, err)
	}
	c.vsan = &relogin{rt: vsc.Client, auth: auth}

	if err := c.locate(ctx, opts.Datacenter, opts.Cluster); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// connectInProcess finishes the connection of a client whose calls go to
// opts.InProcess: the SPBM and vSAN clients, then the inventory to drive.
func (c *Client) connectInProcess(ctx context.Context, opts Options) error {
	c.vim.RoundTripper = opts.InProcess(vim25.Path)
	pc, err := pbm.NewClient(ctx, c.vim)
	if err != nil {
		return fmt.Errorf("cannot reach the storage policy service of %s: %w", c.host, err)
	}
	pc.RoundTripper = opts.InProcess(pbm.Path)
	c.pbm = pc
	c.vsan = opts.InProcess(vsan.Path)
	return c.locate(ctx, opts.Datacenter, opts.Cluster)
}

// endpoint parses the URL and picks the credentials.
func endpoint(opts Options) (*url.URL, *url.Userinfo, error) {
	if opts.URL == "" {
		return nil, nil, errors.New("no vCenter URL: set GOVC_URL (e.g. https://vcenter.example.com/sdk) or pass url=")
	}
	u, err := soap.ParseURL(opts.URL)
	if err != nil || u == nil || u.Host == "" {
		// The parse error would quote the URL, credentials and all.
		return nil, nil, errors.New("the vCenter URL is not valid: want https://host/sdk or a host name")
	}
	user := u.User
	u.User = nil
	if opts.Username != "" {
		user = url.UserPassword(opts.Username, opts.Password)
	}
	if user == nil || user.Username() == "" {
		return nil, nil, fmt.Errorf("no vCenter user for %s: set GOVC_USERNAME and GOVC_PASSWORD (or put them in GOVC_URL)", u.Host)
	}
	return u, user, nil
}

// trust sets what certificates the client accepts.
func trust(sc *soap.Client, u *url.URL, opts Options) error {
	if opts.Insecure {
		return nil
	}
	if opts.CACerts != "" {
		if err := sc.SetRootCAs(opts.CACerts); err != nil {
			return fmt.Errorf("cannot use the CA certificates in %s: %w", opts.CACerts, err)
		}
	}
	if len(opts.CAPEM) > 0 {
		pool := sc.DefaultTransport().TLSClientConfig.RootCAs
		if pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(opts.CAPEM) {
			return errors.New("internal error: the trusted certificate is not PEM")
		}
		sc.DefaultTransport().TLSClientConfig.RootCAs = pool
	}
	if opts.KnownHosts != "" {
		if err := sc.LoadThumbprints(opts.KnownHosts); err != nil {
			return fmt.Errorf("cannot read known hosts %s: %w", opts.KnownHosts, err)
		}
	}
	return nil
}

// locate finds the datacenter and cluster to drive.
func (c *Client) locate(ctx context.Context, dcName, clusterName string) error {
	c.finder = find.NewFinder(c.vim, true)
	var err error
	if dcName == "" {
		c.dc, err = c.finder.DefaultDatacenter(ctx)
	} else {
		c.dc, err = c.finder.Datacenter(ctx, dcName)
	}
	if err != nil {
		return fmt.Errorf("datacenter: %w (set GOVC_DATACENTER or datacenter=)", err)
	}
	c.finder.SetDatacenter(c.dc)
	if clusterName != "" {
		c.cluster, err = c.finder.ClusterComputeResource(ctx, clusterName)
		if err != nil {
			return fmt.Errorf("cluster: %w", err)
		}
		return nil
	}
	clusters, err := c.finder.ClusterComputeResourceList(ctx, "*")
	if err != nil {
		return fmt.Errorf("no cluster in datacenter %s: %w", c.dc.Name(), err)
	}
	if len(clusters) > 1 {
		var names []string
		for _, cl := range clusters {
			names = append(names, cl.Name())
		}
		return fmt.Errorf("datacenter %s has %d clusters (%s): name one with cluster=", c.dc.Name(), len(clusters), strings.Join(names, ", "))
	}
	c.cluster = clusters[0]
	return nil
}

// Close logs out and stops the keep-alive.
func (c *Client) Close() {
	if c == nil || c.vim == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = session.NewManager(c.vim).Logout(ctx)
	if c.keep != nil {
		c.keep.Stop()
	}
}

// Host is the vCenter's host:port.
func (c *Client) Host() string { return c.host }

// Cluster is the name of the cluster the client drives.
func (c *Client) Cluster() string { return c.cluster.Name() }

// VIM returns the underlying vim25 client, for tests and tools.
func (c *Client) VIM() *vim25.Client { return c.vim }

// redact removes the password from an error's text.
func redact(err error, opts Options) error {
	secrets := []string{opts.Password}
	if u, perr := url.Parse(opts.URL); perr == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			secrets = append(secrets, p, url.QueryEscape(p), url.PathEscape(p))
		}
	}
	if opts.Password != "" {
		secrets = append(secrets, url.QueryEscape(opts.Password), url.PathEscape(opts.Password))
	}
	return &redacted{err: err, secrets: secrets}
}

type redacted struct {
	err     error
	secrets []string
}

func (r *redacted) Error() string {
	msg := r.err.Error()
	for _, s := range r.secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "****")
		}
	}
	return msg
}

func (r *redacted) Unwrap() error { return r.err }
