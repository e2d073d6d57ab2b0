package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// noStore is the message for a store file that is not there. A run writes
// its store as out/SCRIPT/CAMPAIGN.db, a name easy to guess wrong, so the
// message lists the stores nearest the path given: those in its closest
// existing directory and one level below it.
func noStore(path string) string {
	msg := "no such store file " + path
	near := nearbyStores(path)
	const most = 5
	switch {
	case len(near) > most:
		msg += fmt.Sprintf("; stores near it: %s and %d more", strings.Join(near[:most], ", "), len(near)-most)
	case len(near) > 0:
		msg += "; stores near it: " + strings.Join(near, ", ")
	}
	return msg
}

// nearbyStores are the .db files in the closest existing directory of path
// and in its subdirectories, sorted; none when that directory is the
// file system's root.
func nearbyStores(path string) []string {
	dir := filepath.Dir(path)
	for {
		up := filepath.Dir(dir)
		if up == dir && filepath.IsAbs(dir) {
			return nil
		}
		info, err := os.Stat(dir)
		if err == nil && info.IsDir() {
			break
		}
		if !errors.Is(err, os.ErrNotExist) || up == dir {
			return nil
		}
		dir = up
	}
	var found []string
	for _, pattern := range []string{"*.db", filepath.Join("*", "*.db")} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		found = append(found, m...)
	}
	sort.Strings(found)
	return found
}

// isStoreFile says whether path is a file (not a directory) that exists.
func isStoreFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}
