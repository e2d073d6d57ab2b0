// Package worker checks worker images before a deployment relies on them:
// a template as cloned (guest OS, NIC, disks) and a running worker as fio
// will use it (guest IP reported by VMware Tools, fio server reachable, the
// same fio version as the client, every data disk readable). See
// docs/worker-image.md for what an image needs.
package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"starbench/internal/vsphere"
)

// ServerPort is the port the worker image's fio server listens on.
const ServerPort = 8765

// Finding is the outcome of one check.
type Finding struct {
	Subject string // "template starbench-worker-template", "worker w-01"
	Check   string // "guest OS", "fio server", "disk2 (/dev/sdc)", ...
	OK      bool
	Detail  string // what was found; for a failure, what would be right
}

func (f Finding) String() string {
	mark := "ok  "
	if !f.OK {
		mark = "FAIL"
	}
	return fmt.Sprintf("%s %s: %s: %s", mark, f.Subject, f.Check, f.Detail)
}

// Failed says whether any finding failed.
func Failed(fs []Finding) bool {
	for _, f := range fs {
		if !f.OK {
			return true
		}
	}
	return false
}

// Options say how to reach and read a running worker.
type Options struct {
	Port int // the fio server's port (0 = ServerPort)
	// FioBinary is the local fio client ("" = fio on PATH).
	FioBinary string
	// WantVersion is the fio version the server must run ("" = the local
	// client's: fio's client/server protocol needs the same version).
	WantVersion string
	// DiskPath maps a data disk to the path fio reads on the worker (nil =
	// the guest device, /dev/sdb ...); tests map them to files.
	DiskPath func(vsphere.Disk) string
	// Timeout bounds each fio call (0 = 1 minute).
	Timeout time.Duration
}

// Template checks a template as deployments clone it.
func Template(ctx context.Context, c *vsphere.Client, name string) []Finding {
	subject := "template " + name
	info, err := c.TemplateInfo(ctx, name)
	if err != nil {
		return []Finding{{subject, "exists", false, err.Error()}}
	}
	fs := []Finding{{subject, "is a template", info.Template, map[bool]string{
		true:  "marked as a template",
		false: "a VM, not a template: mark it as a template (govc vm.markastemplate) so that no one powers it on by mistake",
	}[info.Template]}}
	linux := strings.Contains(strings.ToLower(info.GuestID+" "+info.GuestFullName), "linux") ||
		regexp.MustCompile(`(?i)ubuntu|debian|rhel|centos|rocky|alma|sles|photon|other.*linux`).MatchString(info.GuestID)
	fs = append(fs, Finding{subject, "guest OS", linux, describe(linux, info.GuestID, "a Linux guest (fio and open-vm-tools run on Linux); set the VM's guest OS to the Linux it runs")})
	fs = append(fs, Finding{subject, "network", info.NICs == 1, describe(info.NICs == 1, fmt.Sprintf("%d NIC", info.NICs), "exactly one NIC: the guest reports its IP on it and fio's client reaches the server there")})
	fs = append(fs, Finding{subject, "disks", info.Disks == 1, describe(info.Disks == 1, fmt.Sprintf("%d disk", info.Disks),
		"exactly one disk, the OS disk: deployments add the data disks after it, and the workers name them /dev/sdb, /dev/sdc ... in that order")})
	ctrl := "a SCSI controller"
	if !info.SCSI {
		ctrl = "no SCSI controller: deployments add a paravirtual one for the data disks"
	}
	fs = append(fs, Finding{subject, "controller", true, ctrl})
	return fs
}

func describe(ok bool, found, want string) string {
	if ok {
		return found
	}
	return found + "; want " + want
}

// Running checks a deployed, powered-on worker as fio will use it.
func Running(ctx context.Context, w vsphere.Worker, opts Options) []Finding {
	subject := "worker " + w.Name
	if w.IP == "" {
		return []Finding{{subject, "guest IP", false, "no IP reported: VMware Tools (open-vm-tools) must run in the guest and the NIC must get an address (DHCP); is the VM powered on?"}}
	}
	fs := []Finding{{subject, "guest IP", true, w.IP + " (reported by VMware Tools)"}}
	port := opts.Port
	if port == 0 {
		port = ServerPort
	}
	addr := net.JoinHostPort(w.IP, strconv.Itoa(port))
	conn, err := (&net.Dialer{Timeout: 10 * time.Second}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return append(fs, Finding{subject, "fio server", false, fmt.Sprintf("nothing answers at %s (%v): the image must start `fio --server` on port %d at boot (docs/worker-image.md)", addr, err, port)})
	}
	conn.Close()
	fs = append(fs, Finding{subject, "fio server", true, "answers at " + addr})

	bin := opts.FioBinary
	if bin == "" {
		bin = "fio"
	}
	want := opts.WantVersion
	if want == "" {
		out, err := exec.CommandContext(ctx, bin, "--version").Output()
		if err != nil {
			return append(fs, Finding{subject, "fio version", false, fmt.Sprintf("the local fio client does not run (%v): install fio here (apt-get install fio)", err)})
		}
		want = strings.TrimSpace(string(out))
	}
	got, _, err := probe(ctx, bin, addr, "/dev/zero", opts.timeout())
	switch {
	case err != nil:
		return append(fs, Finding{subject, "fio version", false, err.Error()})
	case got != want:
		return append(fs, Finding{subject, "fio version", false, fmt.Sprintf("the server runs %s and the client here %s: fio's client and server must run the same version (install %s in the image, or that version here)", got, want, want)})
	}
	fs = append(fs, Finding{subject, "fio version", true, got})
	if len(w.Disks) == 0 {
		return append(fs, Finding{subject, "data disks", false, "no data disks: deploy workers with disks=1 or more"})
	}
	for _, d := range w.Disks {
		path := d.Path
		if opts.DiskPath != nil {
			path = opts.DiskPath(d)
		}
		check := fmt.Sprintf("%s (%s)", d.Name, d.Path)
		if _, msg, err := probe(ctx, bin, addr, path, opts.timeout()); err != nil {
			fs = append(fs, Finding{subject, check, false, fmt.Sprintf("fio on the worker cannot read it: %s (is the disk attached in the order deployments add them, with no partition or filesystem on it?)", strings.TrimSpace(msg+" "+err.Error()))})
		} else {
			fs = append(fs, Finding{subject, check, true, fmt.Sprintf("readable, %d GiB", d.SizeBytes>>30)})
		}
	}
	return fs
}

func (o Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return time.Minute
	}
	return o.Timeout
}

var versionRE = regexp.MustCompile(`fio=(fio-[0-9][^,\s]*)`)

// probe runs a tiny read of path on the fio server at addr, which creates
// nothing and writes nothing, and returns the server's fio version and
// what the server said when the read failed.
func probe(ctx context.Context, bin, addr, path string, timeout time.Duration) (version, said string, err error) {
	dir, err := os.MkdirTemp("", "starbench-check-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(dir)
	job := filepath.Join(dir, "check.fio")
	text := fmt.Sprintf("[check]\nfilename=%s\nrw=read\nbs=4k\nsize=64k\nallow_file_create=0\nioengine=psync\n", path)
	if err := os.WriteFile(job, []byte(text), 0o644); err != nil {
		return "", "", err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	host, port, _ := net.SplitHostPort(addr)
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--client="+host+","+port, job)
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	if m := versionRE.FindStringSubmatch(out.String()); m != nil {
		version = m[1]
	}
	var lines []string
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, "fio: ") || strings.Contains(line, "error") {
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	switch {
	case ctx.Err() != nil:
		return version, "", fmt.Errorf("the fio server at %s did not answer within %s", addr, timeout)
	case runErr != nil:
		var exit *exec.ExitError
		if !errors.As(runErr, &exit) {
			return version, "", fmt.Errorf("running the local fio client: %w", runErr)
		}
		return version, strings.Join(lines, "; "), fmt.Errorf("(fio exit %d)", exit.ExitCode())
	case version == "":
		return "", "", fmt.Errorf("the fio server at %s did not say its version", addr)
	}
	return version, "", nil
}
