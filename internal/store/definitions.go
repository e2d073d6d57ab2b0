package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
)

// Definition is what a campaign's part (kind "workload") was when its runs
// were stored: its text, compared on resume.
type Definition struct {
	Kind, Name, Text string
}

// Definitions returns the stored definitions of kind, by name.
func (s *Store) Definitions(ctx context.Context, kind string) (map[string]Definition, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, text FROM definitions WHERE kind = ?`, kind)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]Definition{}
	for rows.Next() {
		d := Definition{Kind: kind}
		if err := rows.Scan(&d.Name, &d.Text); err != nil {
			return nil, err
		}
		out[d.Name] = d
	}
	return out, rows.Err()
}

// SaveDefinitions records defs, replacing those of the same kind and name.
func (s *Store) SaveDefinitions(ctx context.Context, defs []Definition) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		for _, d := range defs {
			sum := sha256.Sum256([]byte(d.Text))
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO definitions (kind, name, sha256, text) VALUES (?, ?, ?, ?)`,
				d.Kind, d.Name, hex.EncodeToString(sum[:]), d.Text); err != nil {
				return err
			}
		}
		return nil
	})
}
