package sim

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/vim25/mo"
)

// TestDatastoreFilesLiveInMemory: the vSAN datastore's files are on the
// memory file system when the machine has one, and go with the simulator.
func TestDatastoreFilesLiveInMemory(t *testing.T) {
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm on this machine")
	}
	s, c := startInProcess(t, Options{})
	ds, err := find.NewFinder(c).Datastore(context.Background(), "/"+Datacenter+"/datastore/"+Datastore)
	if err != nil {
		t.Fatal(err)
	}
	var mds mo.Datastore
	if err := ds.Properties(context.Background(), ds.Reference(), []string{"info"}, &mds); err != nil {
		t.Fatal(err)
	}
	dir := mds.Info.GetDatastoreInfo().Url
	if !strings.HasPrefix(dir, "/dev/shm/") || s.home == "" {
		t.Fatalf("vSAN datastore at %s, want it under /dev/shm", dir)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) == 0 {
		t.Errorf("datastore directory %s: %v, %d entries; want the template's files", dir, err, len(entries))
	}
	s.Close()
	if _, err := os.Stat(s.home); !os.IsNotExist(err) {
		t.Errorf("%s is still there after Close: %v", s.home, err)
	}
}
