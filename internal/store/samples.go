package store

import (
	"context"
	"database/sql"

	"starbench/internal/fio"
)

// insertSamples stores a run over time (the samples table): per job,
// direction and interval, on one time axis from the measurement's start.
func (s *Store) insertSamples(ctx context.Context, conn *sql.Conn, runID int64, samples []fio.Sample) error {
	return s.insertBatched(ctx, conn, samplesTable, len(samples), func(i int, to []any) []any {
		x := &samples[i]
		return append(to, runID, x.Job, x.Direction, x.TS, nullable(x.IOPS), nullable(x.MBps), nullable(x.LatMeanUs), nullable(x.P99Us))
	})
}

// reservedSampleColumns are the samples frame's own columns.
var reservedSampleColumns = []string{"t_s"}

// samplesFrame is the samples of every successful run, in time order; a
// job of ” (a one-job workload) reads as "all".
var samplesFrame = frameQuery{
	sql: `SELECT c.id, r.id, c.label, r.workload, r.repeat, CASE s.job WHEN '' THEN 'all' ELSE s.job END, s.direction, s.t_s,
		s.iops, s.mbps, s.lat_mean_us, s.p99_us, r.simulated
		FROM samples s JOIN runs r ON r.id = s.run_id JOIN cells c ON c.id = r.cell_id
		WHERE r.status = 'ok' ORDER BY c.position, r.workload, r.repeat, s.t_s, s.rowid`,
	cols: concat(runCols, []column{{"job", text}, {"direction", text}, {"t_s", real}, {"iops", real}, {"mbps", real},
		{"lat_mean_us", real}, {"p99_us", real}, {"simulated", boolean}}),
	withLevels: true,
}
