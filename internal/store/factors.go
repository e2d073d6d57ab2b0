package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Level types: how a factor's levels are typed in frames and views.
const (
	LevelInt   = "int"
	LevelFloat = "float"
	LevelBool  = "bool"
	LevelText  = "text"
)

// Factor is a factor as the campaign declared it.
type Factor struct {
	Name string
	// Type is the Starlark type its levels share (LevelInt, LevelFloat,
	// LevelBool), or LevelText.
	Type string
	// Load marks a load (iodepth, VMs, threads) rather than a cluster
	// setting: reports draw curves over it instead of ranking its levels.
	Load bool
	// Levels are the levels as text (as in cell_levels), in declared order.
	Levels []string
}

// SaveFactors records factors as declared, in order; a factor declared
// again replaces its record, and factors of earlier sessions stay.
func (s *Store) SaveFactors(ctx context.Context, factors []Factor) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		for i, f := range factors {
			if !slices.Contains([]string{LevelInt, LevelFloat, LevelBool, LevelText}, f.Type) {
				return fmt.Errorf("factor %q has level type %q; want int, float, bool or text", f.Name, f.Type)
			}
			levels, err := json.Marshal(f.Levels)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO factors (name, position, type, load, levels) VALUES (?,?,?,?,?)
				ON CONFLICT (name) DO UPDATE SET position = excluded.position, type = excluded.type, load = excluded.load, levels = excluded.levels`,
				f.Name, i, f.Type, f.Load, string(levels)); err != nil {
				return err
			}
		}
		return refreshViews(ctx, tx)
	})
}

// DeclaredFactors returns the factors as declared, in declaration order;
// none in a store written before schema version 8.
func (s *Store) DeclaredFactors(ctx context.Context) ([]Factor, error) {
	l, err := readLayout(ctx, s.db)
	return l.declared, err
}

// readDeclared reads the factors table in declaration order.
func readDeclared(ctx context.Context, q querier) ([]Factor, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, type, load, levels FROM factors ORDER BY position, name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Factor
	for rows.Next() {
		var f Factor
		var levels string
		if err := rows.Scan(&f.Name, &f.Type, &f.Load, &levels); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(levels), &f.Levels); err != nil {
			return nil, fmt.Errorf("factor %q: levels %q: %w", f.Name, levels, err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// declaredFactor returns the declaration of factor name; a factor of a
// store from before version 8 is text, its levels in no declared order.
func (l layout) declaredFactor(name string) Factor {
	for _, f := range l.declared {
		if f.Name == name {
			return f
		}
	}
	return Factor{Name: name, Type: LevelText}
}

// typedLevel converts a level's text to its factor's type: int64, float64,
// bool or string. A level that does not parse (a store edited by hand)
// stays text.
func typedLevel(typ, level string) any {
	switch typ {
	case LevelInt:
		if n, err := strconv.ParseInt(level, 10, 64); err == nil {
			return n
		}
	case LevelFloat:
		if x, err := strconv.ParseFloat(level, 64); err == nil {
			return x
		}
	case LevelBool:
		switch level {
		case "True":
			return true
		case "False":
			return false
		}
	}
	return level
}

// levelRank orders a factor's levels as declared; levels it does not
// declare (from an earlier session, or a store from before version 8) come
// after, in execution order.
func levelRank(f Factor, a, b string) int {
	ia, ib := slices.Index(f.Levels, a), slices.Index(f.Levels, b)
	switch {
	case ia >= 0 && ib >= 0:
		return cmp.Compare(ia, ib)
	case ia >= 0:
		return -1
	case ib >= 0:
		return 1
	}
	return 0
}

// levelOrderSQL ranks cell c's level of each factor as levelRank does, as
// ORDER BY terms for the views, ending with the execution order.
func levelOrderSQL(l layout, c string) string {
	var b strings.Builder
	for _, name := range l.factors {
		f := l.declaredFactor(name)
		if len(f.Levels) == 0 {
			continue
		}
		fmt.Fprintf(&b, "(SELECT CASE level")
		for i, level := range f.Levels {
			fmt.Fprintf(&b, " WHEN %s THEN %d", quoteText(level), i)
		}
		fmt.Fprintf(&b, " ELSE %d END FROM cell_levels WHERE cell_id = %s.id AND factor = %s), ", len(f.Levels), c, quoteText(name))
	}
	return b.String() + c + ".position"
}
