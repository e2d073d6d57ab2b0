package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"

	"starbench/internal/fio"
)

// insertArtifacts keeps a run's files (the artifacts table), compressed.
func insertArtifacts(ctx context.Context, tx *sql.Tx, runID int64, artifacts []fio.Artifact) error {
	for _, a := range artifacts {
		content, err := compress(a.Content)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO artifacts (run_id, name, content) VALUES (?,?,?)`, runID, a.Name, content); err != nil {
			return err
		}
	}
	return nil
}

// Artifacts returns the files kept with the stored run of key, by name.
func (s *Store) Artifacts(ctx context.Context, key RunKey) ([]fio.Artifact, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT a.name, a.content FROM artifacts a JOIN runs r ON r.id = a.run_id JOIN cells c ON c.id = r.cell_id
		WHERE c.label = ? AND r.workload = ? AND r.repeat = ? ORDER BY a.name`, key.Cell, key.Workload, key.Repeat)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []fio.Artifact
	for rows.Next() {
		var a fio.Artifact
		var packed []byte
		if err := rows.Scan(&a.Name, &packed); err != nil {
			return nil, err
		}
		if a.Content, err = decompress(packed); err != nil {
			return nil, fmt.Errorf("artifact %s of run %s: %w", a.Name, key, err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// SessionFile returns the content of the file at path that session loaded;
// ErrNoContent when the store keeps only its hash (written before v4).
func (s *Store) SessionFile(ctx context.Context, session int64, path string) ([]byte, error) {
	var packed []byte
	err := s.db.QueryRowContext(ctx, `SELECT content FROM session_files WHERE session_id = ? AND path = ?`, session, path).Scan(&packed)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("session %d loaded no file %s", session, path)
	case err != nil:
		return nil, err
	case packed == nil:
		return nil, ErrNoContent
	}
	return decompress(packed)
}

// ErrNoContent is a file a store knows only by its hash.
var ErrNoContent = errors.New("the store keeps only the hash of this file (written before starbench kept contents)")

func compress(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decompress(b []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}
