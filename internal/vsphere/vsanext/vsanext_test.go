package vsanext

import (
	"context"
	"strings"
	"testing"

	"github.com/vmware/govmomi/vim25/soap"
	vim "github.com/vmware/govmomi/vim25/types"
)

type emptyAnswer struct{}

func (emptyAnswer) RoundTrip(context.Context, soap.HasFault, soap.HasFault) error { return nil }

// TestAnEmptyAnswerIsAnError: a response with neither a result nor a fault
// is an error that names the call, never a nil dereference.
func TestAnEmptyAnswerIsAnError(t *testing.T) {
	cluster := vim.ManagedObjectReference{Type: "ClusterComputeResource", Value: "domain-c1"}
	if _, err := GetConfig(context.Background(), emptyAnswer{}, cluster); err == nil || !strings.Contains(err.Error(), "VsanClusterGetConfig") {
		t.Errorf("GetConfig: got %v, want an error naming VsanClusterGetConfig", err)
	}
	if _, err := Reconfigure(context.Background(), emptyAnswer{}, cluster, ReconfigSpec{}); err == nil || !strings.Contains(err.Error(), "VsanClusterReconfig") {
		t.Errorf("Reconfigure: got %v, want an error naming VsanClusterReconfig", err)
	}
}
