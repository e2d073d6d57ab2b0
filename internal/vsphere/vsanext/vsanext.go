// Package vsanext defines the vSAN API types that govmomi's vsan/types lack:
// the RDMA configuration of a cluster (vSAN 7.0 U2 and later), carried by
// VsanClusterReconfig and returned by VsanClusterGetConfig. The types are
// registered with govmomi's type registry so that both the client and the
// embedded simulator encode and decode them.
package vsanext

import (
	"context"
	"fmt"
	"reflect"

	"github.com/vmware/govmomi/vim25/soap"
	vim "github.com/vmware/govmomi/vim25/types"
	"github.com/vmware/govmomi/vsan"
	vsantypes "github.com/vmware/govmomi/vsan/types"
)

// RdmaConfig is vSAN's RDMA (RoCEv2) setting of a cluster: the data
// object VsanRdmaConfig (vim.vsan.RdmaConfig, vSAN API 7.0U2 and later) of
// VMware's vSAN Management API reference, with its one property
// rdmaEnabled (xsd:boolean, "whether RDMA is enabled for vSAN"); it is the
// rdmaConfig property of VimVsanReconfigSpec, VsanConfigInfoEx and
// VsanHostConfigInfoEx.
// https://developer.broadcom.com/xapis/vsan-management-api/8.0U3/vim.vsan.RdmaConfig.html
type RdmaConfig struct {
	vim.DynamicData

	RdmaEnabled bool `xml:"rdmaEnabled"`
}

// ReconfigSpec is VimVsanReconfigSpec with its RDMA member.
type ReconfigSpec struct {
	vsantypes.VimVsanReconfigSpec

	RdmaConfig *RdmaConfig `xml:"rdmaConfig,omitempty"`
}

// ConfigInfoEx is VsanConfigInfoEx with its RDMA member.
type ConfigInfoEx struct {
	vsantypes.VsanConfigInfoEx

	RdmaConfig *RdmaConfig `xml:"rdmaConfig,omitempty"`
}

// ClusterReconfig is the VsanClusterReconfig request with the RDMA-aware spec.
type ClusterReconfig struct {
	This             vim.ManagedObjectReference `xml:"_this"`
	Cluster          vim.ManagedObjectReference `xml:"cluster"`
	VsanReconfigSpec ReconfigSpec               `xml:"vsanReconfigSpec"`
}

// ClusterGetConfigResponse is the VsanClusterGetConfig response with the RDMA member.
type ClusterGetConfigResponse struct {
	Returnval ConfigInfoEx `xml:"returnval"`
}

func init() {
	vim.Add("vsan:VsanRdmaConfig", reflect.TypeOf((*RdmaConfig)(nil)).Elem())
	vim.Add("vsan:VimVsanReconfigSpec", reflect.TypeOf((*ReconfigSpec)(nil)).Elem())
	vim.Add("vsan:VsanConfigInfoEx", reflect.TypeOf((*ConfigInfoEx)(nil)).Elem())
	vim.Add("vsan:VsanClusterReconfig", reflect.TypeOf((*ClusterReconfig)(nil)).Elem())
}

// ReconfigBody is the SOAP body of VsanClusterReconfig.
type ReconfigBody struct {
	Req    *ClusterReconfig                       `xml:"urn:vsan VsanClusterReconfig,omitempty"`
	Res    *vsantypes.VsanClusterReconfigResponse `xml:"urn:vsan VsanClusterReconfigResponse,omitempty"`
	Fault_ *soap.Fault                            `xml:"http://schemas.xmlsoap.org/soap/envelope/ Fault,omitempty"`
}

// Fault implements soap.HasFault.
func (b *ReconfigBody) Fault() *soap.Fault { return b.Fault_ }

// GetConfigBody is the SOAP body of VsanClusterGetConfig.
type GetConfigBody struct {
	Req    *vsantypes.VsanClusterGetConfig `xml:"urn:vsan VsanClusterGetConfig,omitempty"`
	Res    *ClusterGetConfigResponse       `xml:"urn:vsan VsanClusterGetConfigResponse,omitempty"`
	Fault_ *soap.Fault                     `xml:"http://schemas.xmlsoap.org/soap/envelope/ Fault,omitempty"`
}

// Fault implements soap.HasFault.
func (b *GetConfigBody) Fault() *soap.Fault { return b.Fault_ }

// Reconfigure starts VsanClusterReconfig with spec on cluster and returns the task.
func Reconfigure(ctx context.Context, rt soap.RoundTripper, cluster vim.ManagedObjectReference, spec ReconfigSpec) (vim.ManagedObjectReference, error) {
	req := ReconfigBody{Req: &ClusterReconfig{
		This:             vsan.VsanVcClusterConfigSystemInstance,
		Cluster:          cluster,
		VsanReconfigSpec: spec,
	}}
	var res ReconfigBody
	if err := rt.RoundTrip(ctx, &req, &res); err != nil {
		return vim.ManagedObjectReference{}, err
	}
	if res.Res == nil {
		return vim.ManagedObjectReference{}, errNoResponse("VsanClusterReconfig")
	}
	return res.Res.Returnval, nil
}

// GetConfig reads the vSAN configuration of cluster, RDMA included.
func GetConfig(ctx context.Context, rt soap.RoundTripper, cluster vim.ManagedObjectReference) (*ConfigInfoEx, error) {
	req := GetConfigBody{Req: &vsantypes.VsanClusterGetConfig{
		This:    vsan.VsanVcClusterConfigSystemInstance,
		Cluster: cluster,
	}}
	var res GetConfigBody
	if err := rt.RoundTrip(ctx, &req, &res); err != nil {
		return nil, err
	}
	if res.Res == nil {
		return nil, errNoResponse("VsanClusterGetConfig")
	}
	return &res.Res.Returnval, nil
}

// errNoResponse is a call answered with neither a result nor a fault.
func errNoResponse(method string) error {
	return fmt.Errorf("the vSAN service answered %s with neither a result nor a fault: is the vSAN health service of this vCenter running?", method)
}
