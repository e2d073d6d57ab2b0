package report

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// rangedNote is a note whose numbers may differ from run to run, as a
// bottleneck's utilisations do over a cell's repeats: its text between
// the numbers, and each number's least and greatest as written.
type rangedNote struct {
	text   []string // around the numbers: one more than the numbers
	lo, hi []writtenNumber
}

// writtenNumber is a number as a note writes it.
type writtenNumber struct {
	value   float64
	written string
}

// parseRanged splits note around its numbers: runs of digits (with a
// decimal point or thousands commas inside) that stand apart from words,
// so "vsan-dom at 97 %" has one and "vmnic0" or "4k" none.
func parseRanged(note string) rangedNote {
	var r rangedNote
	rs := []rune(note)
	start := 0
	for i := 0; i < len(rs); {
		if !unicode.IsDigit(rs[i]) || i > 0 && isWordRune(rs[i-1]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && (unicode.IsDigit(rs[j]) || (rs[j] == '.' || rs[j] == ',') && j+1 < len(rs) && unicode.IsDigit(rs[j+1])) {
			j++
		}
		if j < len(rs) && isWordRune(rs[j]) {
			i = j
			continue
		}
		written := string(rs[i:j])
		v, err := strconv.ParseFloat(strings.ReplaceAll(written, ",", ""), 64)
		if err != nil {
			i = j
			continue
		}
		r.text = append(r.text, string(rs[start:i]))
		r.lo, r.hi = append(r.lo, writtenNumber{v, written}), append(r.hi, writtenNumber{v, written})
		start, i = j, j
	}
	r.text = append(r.text, string(rs[start:]))
	return r
}

func isWordRune(c rune) bool {
	return unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' || c == '-' || c == '.'
}

// merge widens r's ranges by o's numbers where the two notes are the same
// but for their numbers, and reports whether they were.
func (r *rangedNote) merge(o rangedNote) bool {
	if !slices.Equal(r.text, o.text) {
		return false
	}
	for i, n := range o.lo {
		if n.value < r.lo[i].value {
			r.lo[i] = n
		}
		if n.value > r.hi[i].value {
			r.hi[i] = n
		}
	}
	return true
}

// String is the note with each number that differed as its range, "97-100".
func (r rangedNote) String() string {
	var b strings.Builder
	for i, t := range r.text {
		b.WriteString(t)
		if i < len(r.lo) {
			b.WriteString(r.lo[i].written)
			if r.hi[i].value != r.lo[i].value {
				b.WriteString("-" + r.hi[i].written)
			}
		}
	}
	return b.String()
}

// addRanged adds note to notes, merged into one the same but for its
// numbers where there is one.
func addRanged(notes []rangedNote, note string) []rangedNote {
	n := parseRanged(note)
	for i := range notes {
		if notes[i].merge(n) {
			return notes
		}
	}
	return append(notes, n)
}
