// Package vsphere drives vCenter through govmomi: connection, inventory,
// worker deployment, SPBM policies, vSAN cluster settings and host metrics.
package vsphere

// Client is a logged-in vCenter connection.
type Client struct{}
