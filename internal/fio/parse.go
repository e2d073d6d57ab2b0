package fio

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"starbench/internal/spell"
)

// Pos is where an option or section came from: a job file (or one it
// included) and a line.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("line %d", p.Line)
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// PosError is a problem at a place in a job file.
type PosError struct {
	Pos Pos
	Err error
}

func (e *PosError) Error() string { return e.Pos.String() + ": " + e.Err.Error() }
func (e *PosError) Unwrap() error { return e.Err }

func errAt(p Pos, format string, args ...any) error {
	return &PosError{Pos: p, Err: fmt.Errorf(format, args...)}
}

// LoadOptions say how a job file is read.
type LoadOptions struct {
	// Vars expand ${NAME} in option values before the environment does.
	Vars map[string]string
	// Env looks up the environment; nil means the process environment.
	Env func(string) (string, bool)
	// ReadFile reads the job file and what it includes; nil means os.ReadFile.
	ReadFile func(string) ([]byte, error)
}

func (o LoadOptions) lookup(name string) (string, bool) {
	if v, ok := o.Vars[name]; ok {
		return v, true
	}
	if o.Env != nil {
		return o.Env(name)
	}
	return os.LookupEnv(name)
}

func (o LoadOptions) read(path string) ([]byte, error) {
	if o.ReadFile != nil {
		return o.ReadFile(path)
	}
	return os.ReadFile(path)
}

// section is one [name] block as read, with where each option came from.
type section struct {
	name string
	pos  Pos
	opts []Option
	at   []Pos // at[i] is where opts[i] was set
}

// maxLine bounds one job-file line, as fio's own parser does (it reads 8 KiB lines).
const maxLine = 64 << 10

// maxIncludeDepth stops include cycles.
const maxIncludeDepth = 16

// LoadWorkload reads a job file (and the files it includes) into a workload
// named after the file.
func LoadWorkload(path string, o LoadOptions) (*Workload, error) {
	data, err := o.read(path)
	if err != nil {
		return nil, fmt.Errorf("reading job file: %w", err)
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return parseWorkload(name, path, string(data), o)
}

// ParseWorkload reads job-file text; file names it in errors and is where
// include directives are resolved from ("" = the working directory).
func ParseWorkload(name, file, text string, o LoadOptions) (*Workload, error) {
	return parseWorkload(name, file, text, o)
}

func parseWorkload(name, file, text string, o LoadOptions) (*Workload, error) {
	secs, err := readSections(file, text, o)
	if err != nil {
		return nil, err
	}
	return workloadOf(name, secs)
}

// readSections reads job-file text the way fio does: a ';' or '#' starts a
// comment anywhere on a line (fio has no escape for them), blanks around
// names and values are dropped, `include FILE` pulls in the options of
// another file (relative to the including one), and ${NAME} in a value is
// replaced by a variable. Every option is checked against fio's own list.
func readSections(file, text string, o LoadOptions) ([]section, error) {
	var secs []section
	err := readLines(file, text, o, 0, func(p Pos, line string) error {
		if line[0] == '[' {
			if !strings.HasSuffix(line, "]") || len(line) < 3 {
				return errAt(p, "%q is not a section header; want [name]", line)
			}
			secs = append(secs, section{name: strings.TrimSpace(line[1 : len(line)-1]), pos: p})
			return nil
		}
		if len(secs) == 0 {
			return errAt(p, "option %q comes before any section; put it under [global] or a [job] header", line)
		}
		opt, err := readOption(p, line, o)
		if err != nil {
			return err
		}
		s := &secs[len(secs)-1]
		s.opts = append(s.opts, opt)
		s.at = append(s.at, p)
		return nil
	})
	return secs, err
}

// readLines calls f with every meaningful line of text, includes expanded.
func readLines(file, text string, o LoadOptions, depth int, f func(Pos, string) error) error {
	for n, raw := range strings.Split(text, "\n") {
		p := Pos{File: file, Line: n + 1}
		if len(raw) > maxLine {
			return errAt(p, "line of %d bytes; fio reads at most %d", len(raw), maxLine)
		}
		line := stripComment(raw)
		if line == "" {
			continue
		}
		if inc, ok := includeTarget(line); ok {
			if depth >= maxIncludeDepth {
				return errAt(p, "include %s: includes nest deeper than %d (a cycle?)", inc, maxIncludeDepth)
			}
			path := inc
			if !filepath.IsAbs(path) && file != "" {
				path = filepath.Join(filepath.Dir(file), inc)
			}
			data, err := o.read(path)
			if err != nil {
				return errAt(p, "include %s: %w", inc, err)
			}
			err = readLines(path, string(data), o, depth+1, func(ip Pos, l string) error {
				if l[0] == '[' {
					return errAt(ip, "%q: an included file holds options only, no [sections] (fio's rule)", l)
				}
				return f(ip, l)
			})
			if err != nil {
				return err
			}
			continue
		}
		if err := f(p, line); err != nil {
			return err
		}
	}
	return nil
}

// stripComment drops what fio drops: leading and trailing blanks and
// everything from the first ';' or '#' on.
func stripComment(line string) string {
	if i := strings.IndexAny(line, ";#"); i >= 0 {
		line = line[:i]
	}
	return strings.TrimSpace(line)
}

// includeTarget reads an `include FILE` directive.
func includeTarget(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "include")
	if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	return strings.TrimSpace(rest), strings.TrimSpace(rest) != ""
}

var envVar = regexp.MustCompile(`\$\{([^}]*)\}`)

// readOption reads name[=value], expands ${NAME} in the value and checks
// the name against fio's options.
func readOption(p Pos, line string, o LoadOptions) (Option, error) {
	key, value, hasValue := strings.Cut(line, "=")
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	if key == "" {
		return Option{}, errAt(p, "%q has no option name; want name=value or a flag name", line)
	}
	if err := CheckOptionName(key); err != nil {
		return Option{}, &PosError{Pos: p, Err: err}
	}
	if hasValue && value == "" {
		return Option{}, errAt(p, "%s= has no value; give one (%s=VALUE) or write the flag alone (%s)", key, key, key)
	}
	var missing []string
	value = envVar.ReplaceAllStringFunc(value, func(m string) string {
		name := m[2 : len(m)-1]
		v, ok := o.lookup(name)
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		return Option{}, errAt(p, "%s=%s: ${%s} is not set; give it as a variable of the job file or in the environment (fio would run the option with an empty value)",
			key, strings.TrimSpace(line[strings.Index(line, "=")+1:]), missing[0])
	}
	return Option{Key: key, Value: value}, nil
}

// deprecatedOptions are options fio still lists but refuses ("Option
// percentage_sequential is deprecated", then "failed parsing"), with what
// to give instead.
var deprecatedOptions = map[string]string{
	"percentage_sequential": "give percentage_random, its complement (percentage_sequential=30 is percentage_random=70)",
	"rwmixcycle":            "leave it out: fio no longer switches between reads and writes in cycles",
}

// CheckOptionName refuses a name fio does not know, suggesting the closest
// one, as fio itself does.
func CheckOptionName(key string) error {
	if instead, ok := deprecatedOptions[Canonical(key)]; ok {
		return fmt.Errorf("option %q is deprecated: %s fails parsing it; %s", key, fioVersion, instead)
	}
	if _, ok := knownOptions[Canonical(key)]; ok {
		return nil
	}
	best, dist := "", 1<<30
	for _, n := range optionNames() {
		if d := spell.Distance(key, n); d < dist || (d == dist && n < best) {
			best, dist = n, d
		}
	}
	// fio shows a guess within half the name's length.
	if dist <= (len(key)+1)/2 {
		return fmt.Errorf("unknown option %q; did you mean %s? (%s has no option %s)", key, best, fioVersion, key)
	}
	return fmt.Errorf("unknown option %q: %s has no such option (see fio --cmdhelp=all)", key, fioVersion)
}

// optionNames lists fio's option names and aliases, sorted.
var optionNames = sync.OnceValue(func() []string {
	names := make([]string, 0, len(knownOptions)+len(optionAliases))
	for n := range knownOptions {
		names = append(names, n)
	}
	for a := range optionAliases {
		names = append(names, a)
	}
	slices.Sort(names)
	return names
})
