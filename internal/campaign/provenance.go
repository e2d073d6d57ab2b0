package campaign

import (
	"context"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"

	"starbench/internal/store"
	"starbench/internal/testbed"
	"starbench/internal/vsphere"
)

// Origin is what a session knows about where its results come from.
type Origin struct {
	Script string
	// Files are the script and every file it loads.
	Files   []string
	Sets    map[string]string // --set values
	Target  string            // embedded, vcenter or local
	Testbed string            // "" for the target's default
	// Simulated says the data plane is the model.
	Simulated bool
	// Model names the model version behind simulated runs (ignored for
	// measured ones).
	Model string
	// DataPlane names what simulated the runs, the model version and the
	// testbed profile with a digest of its content ("" for measured runs,
	// or where no target was opened): runs simulated by another are not
	// resumed into one campaign.
	DataPlane string
	// VSphere is the session's vCenter connection, nil when none was opened.
	VSphere *vsphere.Client
}

// Provenance is what the store records of a session from origin o and the
// plan as printed; never credentials. Versions that cannot be read are
// recorded as unknown: provenance never stops a campaign.
func (o Origin) Provenance(ctx context.Context, plan string) store.Provenance {
	p := store.Provenance{Script: o.Script, Sets: o.Sets, Target: o.Target, Testbed: o.Testbed, Plan: plan,
		ToolVersion: toolVersion(), FioVersion: "none (simulated data plane)", ModelVersion: o.Model}
	if p.Testbed == "" && o.Simulated {
		p.Testbed = testbed.Default
	}
	if !o.Simulated {
		p.FioVersion, p.ModelVersion = fioVersion(), ""
	}
	if o.VSphere != nil && o.VSphere.VIM() != nil {
		p.VCenterVersion = o.VSphere.VIM().ServiceContent.About.FullName
		p.ESXiVersions = esxiVersions(ctx, o.VSphere)
	}
	p.Files, _ = store.HashFiles(o.Files)
	return p
}

// esxiVersions lists the distinct ESXi versions of the cluster's hosts;
// none when the inventory cannot be read.
func esxiVersions(ctx context.Context, c *vsphere.Client) []string {
	inv, err := c.Inventory(ctx)
	if err != nil {
		return nil
	}
	var versions []string
	for _, h := range inv.Hosts {
		if h.Version != "" && !slices.Contains(versions, h.Version) {
			versions = append(versions, h.Version)
		}
	}
	slices.Sort(versions)
	return versions
}

func toolVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			v += " " + s.Value
		}
	}
	return v
}

func fioVersion() string {
	out, err := exec.Command("fio", "--version").Output()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return strings.TrimSpace(string(out))
}
