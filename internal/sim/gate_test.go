package sim

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
)

// TestDestroyEndsWithTheVMsFiles: a destroy's file deletion (a task of its
// own in the simulator) has ended when the destroy has, so the next task
// that touches the datastore never runs beside it.
func TestDestroyEndsWithTheVMsFiles(t *testing.T) {
	_, c := startInProcess(t, Options{})
	ctx := context.Background()
	for range 5 {
		vm := cloneTemplate(t, c)
		var mvm mo.VirtualMachine
		if err := vm.Properties(ctx, vm.Reference(), []string{"config.files.logDirectory", "datastore"}, &mvm); err != nil {
			t.Fatal(err)
		}
		var ds mo.Datastore
		if err := vm.Properties(ctx, mvm.Datastore[0], []string{"info"}, &ds); err != nil {
			t.Fatal(err)
		}
		var logDir object.DatastorePath
		logDir.FromString(mvm.Config.Files.LogDirectory)
		dir := filepath.Join(ds.Info.GetDatastoreInfo().Url, logDir.Path)
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("the clone's directory: %v", err)
		}
		task, err := vm.Destroy(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := task.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Fatalf("%s is still there when the destroy has ended (%v)", dir, err)
		}
	}
}
