package store

import (
	"context"
	"database/sql"

	"starbench/internal/fio"
)

// insertEvents stores what happened to the cluster during a run (the
// events table; see docs/events.md).
func insertEvents(ctx context.Context, tx *sql.Tx, runID int64, events []fio.Event) error {
	for _, e := range events {
		if _, err := tx.ExecContext(ctx, `INSERT INTO events (run_id, at_s, kind, target, detail) VALUES (?,?,?,?,?)`,
			runID, e.AtS, e.Kind, e.Target, e.Detail); err != nil {
			return err
		}
	}
	return nil
}

// reservedEventColumns are the events frame's own columns.
var reservedEventColumns = []string{"at_s", "kind", "target", "detail"}

// eventsFrame is the events of every successful run, in time order.
var eventsFrame = frameQuery{
	sql: `SELECT c.id, r.id, c.label, r.workload, r.repeat, e.at_s, e.kind, e.target, e.detail, r.simulated
		FROM events e JOIN runs r ON r.id = e.run_id JOIN cells c ON c.id = r.cell_id
		WHERE r.status = 'ok' ORDER BY c.position, r.workload, r.repeat, e.at_s, e.rowid`,
	cols: concat(runCols, []column{{"at_s", real}, {"kind", text}, {"target", text}, {"detail", text},
		{"simulated", boolean}}),
	withLevels: true,
}
