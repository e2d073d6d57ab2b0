package vsphere

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/ovf/importer"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// TemplateName is the template an OVA file becomes: its base name.
func TemplateName(ova string) string {
	return strings.TrimSuffix(filepath.Base(ova), filepath.Ext(ova))
}

// ImportTemplate imports the OVA file at path as the VM template name on the
// cluster's vSAN datastore (or datastore), unless a VM of that name exists.
func (c *Client) ImportTemplate(ctx context.Context, path, name, datastore string) error {
	if _, err := c.finder.VirtualMachine(ctx, name); err == nil {
		return nil
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("ova: %w", err)
	}
	p := &deployPlan{spec: &WorkerSpec{Datastore: datastore}}
	if err := c.pickDatastore(ctx, p); err != nil {
		return err
	}
	folder, poolRef, err := c.folderAndPool(ctx)
	if err != nil {
		return err
	}
	pool := object.NewResourcePool(c.vim, poolRef)
	imp := &importer.Importer{
		Name:         name,
		Log:          func(string) (int, error) { return 0, nil }, // upload progress is not shown
		Client:       c.vim,
		Finder:       c.finder,
		Datacenter:   c.dc,
		Datastore:    object.NewDatastore(c.vim, p.datastore),
		ResourcePool: pool,
		Folder:       folder,
		Archive:      &importer.TapeArchive{Path: path, Opener: importer.Opener{Client: c.vim}},
	}
	ref, err := imp.Import(ctx, "*.ovf", importer.Options{Name: &name})
	if err != nil {
		return fmt.Errorf("importing %s as template %s: %w", path, name, err)
	}
	vm := object.NewVirtualMachine(c.vim, *ref)
	var mvm mo.VirtualMachine
	if err := vm.Properties(ctx, *ref, []string{"config.template"}, &mvm); err == nil && mvm.Config != nil && mvm.Config.Template {
		return nil
	}
	if err := vm.MarkAsTemplate(ctx); err != nil {
		return fmt.Errorf("marking %s as a template: %w", name, err)
	}
	return nil
}

// TemplateInfo is what a worker check reads of a template.
type TemplateInfo struct {
	Template               bool
	GuestID, GuestFullName string
	NICs, Disks            int
	SCSI                   bool // has a SCSI controller for the data disks
}

// TemplateInfo reads the VM or template called name.
func (c *Client) TemplateInfo(ctx context.Context, name string) (TemplateInfo, error) {
	vm, err := c.finder.VirtualMachine(ctx, name)
	if err != nil {
		return TemplateInfo{}, fmt.Errorf("no VM or template named %s in datacenter %s: give its name (template=, --template)", name, c.dc.Name())
	}
	var m mo.VirtualMachine
	if err := vm.Properties(ctx, vm.Reference(), []string{"config.template", "config.guestId", "config.guestFullName", "config.hardware.device"}, &m); err != nil {
		return TemplateInfo{}, err
	}
	info := TemplateInfo{Template: m.Config.Template, GuestID: m.Config.GuestId, GuestFullName: m.Config.GuestFullName}
	devices := object.VirtualDeviceList(m.Config.Hardware.Device)
	info.NICs = len(devices.SelectByType((*types.VirtualEthernetCard)(nil)))
	info.Disks = len(devices.SelectByType((*types.VirtualDisk)(nil)))
	_, err = devices.FindSCSIController("")
	info.SCSI = err == nil
	return info, nil
}

// WorkerNamed reads the worker VM called name.
func (c *Client) WorkerNamed(ctx context.Context, name string) (Worker, error) {
	vms, err := c.vms(ctx, func(n string) bool { return n == name }, "runtime.host", "guest.ipAddress", "config.hardware.device")
	if err != nil {
		return Worker{}, err
	}
	if len(vms) != 1 {
		return Worker{}, fmt.Errorf("%d VMs named %s in datacenter %s: want exactly one worker of that name", len(vms), name, c.dc.Name())
	}
	ws, err := c.describeWorkers(ctx, vms)
	if err != nil {
		return Worker{}, err
	}
	return ws[0], nil
}
