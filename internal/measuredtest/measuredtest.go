// Package measuredtest stands in for a real cluster in tests of what reads
// measured campaigns (starbench fit): a testbed profile with costs of the
// test's choosing, on which the model runs a campaign, and the store it
// writes marked as measured. The tests check the reader against the costs
// they chose. For tests only.
package measuredtest

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"

	"starbench/internal/testbed"
)

// Profile writes p as a JSON profile in a temporary directory of t's and
// returns its path, for --testbed.
func Profile(t testing.TB, p *testbed.Profile) string {
	t.Helper()
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), p.Name+".json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// MarkMeasured marks the simulated campaign store at db as measured on
// target (vcenter: a real cluster): its campaign, sessions, runs and rows.
func MarkMeasured(t testing.TB, db, target string) {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, table := range []string{"campaign", "sessions", "runs", "rows"} {
		if _, err := conn.Exec("UPDATE " + table + " SET simulated = 0"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec("UPDATE sessions SET target = ?", target); err != nil {
		t.Fatal(err)
	}
}

// ScaleCell multiplies the I/Os a second of every run of the cell labelled
// cell in the store at db by f: a cluster that does otherwise there than
// the costs the test chose say.
func ScaleCell(t testing.TB, db, cell string, f float64) {
	t.Helper()
	exec(t, db, `UPDATE rows SET iops = iops * ?, mbps = mbps * ? WHERE run_id IN
		(SELECT r.id FROM runs r JOIN cells c ON c.id = r.cell_id WHERE c.label = ?)`, f, f, cell)
}

// DropHostMetrics deletes the host metrics of the store at db but those
// of its first keep hosts by name: a campaign that read the CPU of some
// of its hosts, or with keep 0 of none.
func DropHostMetrics(t testing.TB, db string, keep int) {
	t.Helper()
	exec(t, db, `DELETE FROM host_metrics WHERE host NOT IN (SELECT DISTINCT host FROM host_metrics ORDER BY host LIMIT ?)`, keep)
}

// RenameHosts renames every host of the host metrics of the store at db
// with suffix: a campaign measured on another cluster.
func RenameHosts(t testing.TB, db, suffix string) {
	t.Helper()
	exec(t, db, `UPDATE host_metrics SET host = host || ?`, suffix)
}

// exec runs query on the store at db and fails t unless it changes a row.
func exec(t testing.TB, db, query string, args ...any) {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	res, err := conn.Exec(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		t.Fatalf("%s changed no row of %s (%v)", query, db, err)
	}
}
