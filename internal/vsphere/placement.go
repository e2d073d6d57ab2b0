package vsphere

import (
	"context"
	"fmt"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// Placement says where worker VMs go, by name or inventory path as govc
// takes them (GOVC_DATASTORE, ...); "" is the default of each.
type Placement struct {
	Datastore    string // default: the cluster's vSAN datastore
	Network      string // default: the template's
	ResourcePool string // default: the cluster's root pool
	Folder       string // default: the datacenter's VM folder
	Host         string // default: every usable host of the cluster
}

// folderAndPool resolves the VM folder and the resource pool of workers.
func (c *Client) folderAndPool(ctx context.Context) (*object.Folder, types.ManagedObjectReference, error) {
	var folder *object.Folder
	var err error
	if c.place.Folder != "" {
		if folder, err = c.finder.Folder(ctx, c.place.Folder); err != nil {
			return nil, types.ManagedObjectReference{}, fmt.Errorf("VM folder %q (GOVC_FOLDER): %w", c.place.Folder, err)
		}
	} else {
		folders, err := c.dc.Folders(ctx)
		if err != nil {
			return nil, types.ManagedObjectReference{}, err
		}
		folder = folders.VmFolder
	}
	if c.place.ResourcePool == "" {
		rp, err := c.cluster.ResourcePool(ctx)
		if err != nil {
			return nil, types.ManagedObjectReference{}, err
		}
		return folder, rp.Reference(), nil
	}
	rp, err := c.finder.ResourcePool(ctx, c.place.ResourcePool)
	if err != nil {
		return nil, types.ManagedObjectReference{}, fmt.Errorf("resource pool %q (GOVC_RESOURCE_POOL): %w", c.place.ResourcePool, err)
	}
	var mrp mo.ResourcePool
	if err := rp.Properties(ctx, rp.Reference(), []string{"owner"}, &mrp); err != nil {
		return nil, types.ManagedObjectReference{}, err
	}
	if mrp.Owner != c.cluster.Reference() {
		return nil, types.ManagedObjectReference{}, fmt.Errorf("resource pool %q (GOVC_RESOURCE_POOL) is not in cluster %s: name one of its pools", c.place.ResourcePool, c.cluster.Name())
	}
	return folder, rp.Reference(), nil
}

// pinHost keeps, of the cluster's usable hosts, the one Placement.Host names.
func (c *Client) pinHost(ctx context.Context, usable []mo.HostSystem) ([]mo.HostSystem, error) {
	if c.place.Host == "" {
		return usable, nil
	}
	h, err := c.finder.HostSystem(ctx, c.place.Host)
	if err != nil {
		return nil, fmt.Errorf("host %q (GOVC_HOST): %w", c.place.Host, err)
	}
	var names []string
	for _, u := range usable {
		if u.Self == h.Reference() {
			return []mo.HostSystem{u}, nil
		}
		names = append(names, u.Name)
	}
	return nil, fmt.Errorf("host %q (GOVC_HOST) is not a connected host of cluster %s out of maintenance mode: want one of %s", c.place.Host, c.cluster.Name(), strings.Join(names, ", "))
}
