package table

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/go-gota/gota/dataframe"
)

// unitSuffixes maps column-name endings to units, most specific first.
var unitSuffixes = []struct{ suffix, unit string }{
	{"iops", "IOPS"},
	{"mbps", "MB/s"},
	{"gbps", "Gb/s"},
	{"_us", "µs"},
	{"_ms", "ms"},
	{"_ns", "ns"},
	{"_sec", "s"},
	{"_s", "s"},
	{"_bytes", "B"},
	{"_gib", "GiB"},
	{"_mib", "MiB"},
	{"_pct", "%"},
	{"_percent", "%"},
}

// UnitOf returns the unit a column name implies by its ending (p99_us: µs,
// read_mbps: MB/s, iops: IOPS), looking through aggregation suffixes
// (iops_mean: IOPS; counts have none), or "" when it implies none.
func UnitOf(column string) string {
	_, unit := SplitUnit(column)
	return unit
}

// SplitUnit splits a column name into what it measures and its unit:
// "p99_us" gives ("p99", "µs"), "iops_mean" gives ("iops_mean", "IOPS"),
// "policy" gives ("policy", "").
func SplitUnit(column string) (string, string) {
	name := strings.ToLower(column)
	if strings.HasSuffix(name, "_count") {
		return column, ""
	}
	base := name
	if i := strings.LastIndex(name, "_"); i > 0 {
		stat := name[i+1:]
		if _, ok := percentile(stat); ok || strings.Contains(" mean std min max sum same ", " "+stat+" ") {
			base = name[:i]
		}
	}
	for _, s := range unitSuffixes {
		if strings.HasSuffix(base, s.suffix) {
			measure := column[:len(base)-len(s.suffix)] + column[len(base):]
			if s.suffix == "iops" || s.suffix == "mbps" || s.suffix == "gbps" {
				measure = column // the name says it plainly
			}
			return strings.Trim(measure, "_"), s.unit
		}
	}
	return column, ""
}

// Thousands formats n with comma thousands separators: 1234567 -> "1,234,567".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// decimals picks one precision for a float column from its largest
// magnitude.
func decimals(c *Column) int {
	big := 0.0
	for i, v := range c.Floats {
		if !c.IsNA(i) && !math.IsInf(v, 0) {
			big = max(big, math.Abs(v))
		}
	}
	switch {
	case big >= 1000, big == 0: // nothing but zeros (or NA) reads 0, not 0.0000
		return 0
	case big >= 10:
		return 1
	case big >= 1:
		return 2
	}
	return 4
}

// cellText formats value i of c for people: thousands separators, one
// precision per column (prec) but for a value it would show as 0, "NA"
// when missing.
func cellText(c *Column, i, prec int) string {
	if c.IsNA(i) {
		return "NA"
	}
	switch c.Kind {
	case Int:
		return Thousands(c.Ints[i])
	case Float:
		v := c.Floats[i]
		if math.IsInf(v, 0) {
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
		if a := math.Abs(v); a > 0 && a < 0.5*math.Pow(10, -float64(prec)) {
			// It would read as 0 at the column's precision (a latency in
			// a long frame of byte rates): two significant digits.
			prec = int(-math.Floor(math.Log10(a))) + 1
		}
		whole, frac, _ := strings.Cut(strconv.FormatFloat(math.Abs(v), 'f', prec, 64), ".")
		n, _ := strconv.Atoi(whole)
		s := Thousands(n)
		if frac != "" {
			s += "." + frac
		}
		if v < 0 && strings.Trim(s, "0.,") != "" {
			s = "-" + s
		}
		return s
	}
	return fmt.Sprint(c.Value(i))
}

// cells returns the header, unit line and formatted cells of df's first n rows.
func cells(df dataframe.DataFrame, n int) (cols []*Column, head, units []string, body [][]string) {
	cols = ReadAll(df)
	n = min(n, df.Nrow())
	body = make([][]string, n)
	for r := range body {
		body[r] = make([]string, len(cols))
	}
	for j, c := range cols {
		head = append(head, c.Name)
		units = append(units, UnitOf(c.Name))
		prec := 0
		if c.Kind == Float {
			prec = decimals(c)
		}
		for r := range n {
			body[r][j] = cellText(c, r, prec)
		}
	}
	return cols, head, units, body
}

// Text renders df as an aligned table: names, a line of units, at most
// maxRows rows (numbers right-aligned, with thousands separators), and a
// line saying how many rows were left out.
func Text(df dataframe.DataFrame, maxRows int) string {
	if df.Ncol() == 0 {
		return "(empty frame)\n"
	}
	shown := df
	if df.Nrow() > maxRows {
		idx := make([]int, maxRows)
		for i := range idx {
			idx[i] = i
		}
		shown, _ = Take(df, idx)
	}
	cols, head, units, body := cells(shown, maxRows)
	width := make([]int, len(cols))
	for j := range cols {
		width[j] = max(runeLen(head[j]), runeLen(units[j]))
		for _, row := range body {
			width[j] = max(width[j], runeLen(row[j]))
		}
	}
	var b strings.Builder
	line := func(vals []string) {
		var row strings.Builder
		for j, v := range vals {
			pad := strings.Repeat(" ", width[j]-runeLen(v))
			if j > 0 {
				row.WriteString("  ")
			}
			if cols[j].Numeric() {
				row.WriteString(pad + v)
			} else {
				row.WriteString(v + pad)
			}
		}
		b.WriteString(strings.TrimRight(row.String(), " ") + "\n")
	}
	line(head)
	if strings.Join(units, "") != "" {
		line(units)
	}
	for _, row := range body {
		line(row)
	}
	s := b.String()
	if more := df.Nrow() - len(body); more > 0 {
		s += fmt.Sprintf("... %s more rows (%s in all)\n", Thousands(more), Thousands(df.Nrow()))
	}
	return s
}

func runeLen(s string) int { return len([]rune(s)) }

// Markdown renders df as a Markdown table with units in the header and
// numeric columns right-aligned.
func Markdown(w io.Writer, df dataframe.DataFrame) error {
	cols, head, units, body := cells(df, df.Nrow())
	bw := bufio.NewWriter(w)
	for j := range head {
		if units[j] != "" {
			head[j] += " (" + units[j] + ")"
		}
	}
	fmt.Fprintf(bw, "| %s |\n|", strings.Join(head, " | "))
	for _, c := range cols {
		if c.Numeric() {
			bw.WriteString("---:|")
		} else {
			bw.WriteString(":---|")
		}
	}
	bw.WriteString("\n")
	for _, row := range body {
		fmt.Fprintf(bw, "| %s |\n", strings.Join(row, " | "))
	}
	return bw.Flush()
}

// rawText formats value i of c for machines: full precision, "" when missing.
func rawText(c *Column, i int) string {
	if c.IsNA(i) {
		return ""
	}
	switch c.Kind {
	case Bool:
		return strconv.FormatBool(c.Bools[i])
	case Int:
		return strconv.Itoa(c.Ints[i])
	case Float:
		return strconv.FormatFloat(c.Floats[i], 'g', -1, 64)
	}
	return c.Strings[i]
}

// WriteCSV writes df as CSV with a header; missing values are empty cells.
func WriteCSV(w io.Writer, df dataframe.DataFrame) error {
	cols := ReadAll(df)
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	rec := make([]string, len(cols))
	for j, c := range cols {
		rec[j] = c.Name
	}
	cw.Write(rec)
	for i := range df.Nrow() {
		for j, c := range cols {
			rec[j] = rawText(c, i)
		}
		cw.Write(rec)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteJSON writes df as a JSON array of objects, keys in column order,
// missing values as null.
func WriteJSON(w io.Writer, df dataframe.DataFrame) error {
	cols := ReadAll(df)
	names := make([][]byte, len(cols))
	for j, c := range cols {
		names[j], _ = json.Marshal(c.Name)
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("[")
	for i := range df.Nrow() {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n  {")
		for j, c := range cols {
			if j > 0 {
				bw.WriteString(", ")
			}
			bw.Write(names[j])
			bw.WriteString(": ")
			v := "null"
			if !c.IsNA(i) {
				b, err := json.Marshal(c.Value(i))
				if err != nil {
					return fmt.Errorf("row %d, column %q: %w", i+1, c.Name, err)
				}
				v = string(b)
			}
			bw.WriteString(v)
		}
		bw.WriteString("}")
	}
	bw.WriteString("\n]\n")
	return bw.Flush()
}
