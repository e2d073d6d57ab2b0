package model

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"starbench/internal/fio"
)

func TestScratchExamples(t *testing.T) {
	files, _ := filepath.Glob("/tmp/fioex/*.fio")
	for _, f := range files {
		wl, err := fio.LoadWorkload(f, fio.LoadOptions{})
		if err != nil {
			t.Logf("%s: load: %v", filepath.Base(f), err)
			continue
		}
		pl, _ := newTestPlane(t)
		res, err := pl.Run(context.Background(), workers(2, 2, "r5"), wl, nil)
		if err != nil {
			t.Logf("%s: run: %v", filepath.Base(f), err)
			continue
		}
		for _, n := range res.Notes {
			if strings.Contains(n, "not modelled") {
				t.Logf("%s: %s", filepath.Base(f), n)
			}
		}
	}
	_ = os.Stdout
}
