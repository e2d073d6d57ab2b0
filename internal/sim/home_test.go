package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// TestOrphanedFilesAreRemoved: the directory of a simulator whose process
// is gone goes at the next start; a live process's stays.
func TestOrphanedFilesAreRemoved(t *testing.T) {
	dir := t.TempDir()
	gone, live := filepath.Join(dir, "starbench-sim-2147483646-1"), filepath.Join(dir, fmt.Sprintf("starbench-sim-%d-2", os.Getpid()))
	other := filepath.Join(dir, "someone-else")
	for _, d := range []string{gone, live, other} {
		if err := os.MkdirAll(filepath.Join(d, "DC0-vsanDatastore"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	removeOrphans(dir)
	for d, want := range map[string]bool{gone: false, live: true, other: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(d), err == nil, want)
		}
	}
}
