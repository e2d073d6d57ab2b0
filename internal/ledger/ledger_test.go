package ledger

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestALedgerSurvivesItsProcess: what one process recorded (and a torn
// last line, as a kill mid-write leaves) is read back by the next.
func TestALedgerSurvivesItsProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out", FileName)
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	vm, _ := l.Add(Entry{VCenter: "vc:443", Kind: "vm", Name: "w-01", Created: true})
	pol, _ := l.Add(Entry{VCenter: "vc:443", Kind: "policy", Name: "r5", Ref: "p-1", Created: true})
	if err := l.SetRef(vm, "vm-42"); err != nil {
		t.Fatal(err)
	}
	if err := l.Done(pol, Removed); err != nil {
		t.Fatal(err)
	}
	// No Close: the process died. Then a half-written record.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"op":"add","entry":{"id":"x`)
	f.Close()

	again, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	p := again.Pending()
	if len(p) != 1 || p[0].Name != "w-01" || p[0].Ref != "vm-42" || !p[0].Created || p[0].Run == "" {
		t.Fatalf("pending %+v, want w-01 with its ref", p)
	}
	if _, ok := again.Find("vc:443", "vm", "", "vm-42"); !ok {
		t.Errorf("Find by ref missed w-01")
	}
	if _, ok := again.Find("other:443", "vm", "", "vm-42"); ok {
		t.Errorf("Find matched another vCenter's entry")
	}
}

func TestUndoGoesPhaseByPhaseNewestFirstAndPastFailures(t *testing.T) {
	l, _ := Open("")
	for _, e := range []Entry{
		{Kind: "cluster", Name: "c"}, {Kind: "vm", Name: "a"}, {Kind: "policy", Name: "p"},
		{Kind: "vm", Name: "b"}, {Kind: "vm", Name: "bad"}, {Kind: "mystery", Name: "m"},
	} {
		e.VCenter = "vc"
		l.Add(e)
	}
	l.Add(Entry{VCenter: "elsewhere", Kind: "vm", Name: "far"})
	var order []string
	undo := func(ctx context.Context, e Entry) (string, error) {
		order = append(order, e.Name)
		if e.Name == "bad" {
			return "", errors.New("refused")
		}
		return Removed, nil
	}
	undoers := map[string]Undoer{"vm": {0, undo}, "policy": {1, undo}, "cluster": {2, undo}}
	var reported []string
	err := l.Undo(context.Background(), "vc", undoers, func(o Outcome) { reported = append(reported, o.Entry.Name+":"+o.How) })
	if want := []string{"bad", "b", "a", "p", "c"}; !slices.Equal(order, want) {
		t.Errorf("undo order %v, want %v", order, want)
	}
	for _, want := range []string{"refused", `undo a "mystery" entry`, "recorded on the vCenter at elsewhere, not vc"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	if len(reported) != 7 {
		t.Errorf("reported %v, want every entry", reported)
	}
	var left []string
	for _, e := range l.Pending() {
		left = append(left, e.Name)
	}
	slices.Sort(left)
	if want := []string{"bad", "far", "m"}; !slices.Equal(left, want) {
		t.Errorf("pending after undo %v, want %v", left, want)
	}
}
