package fio

import (
	"fmt"
	"strconv"
	"strings"
)

// Machine is what fio's reserved keywords stand for on one worker.
type Machine struct {
	NCPUs    int // $ncpus: online CPUs
	MemMB    int // $mb_memory: memory in megabytes
	PageSize int // $pagesize: bytes; 0 means 4096
}

// keywords are fio's reserved keywords, in the order fio replaces them.
var keywords = []string{"$pagesize", "$mb_memory", "$ncpus"}

// HasKeywords says whether any option of the job uses a reserved keyword,
// which each worker's fio replaces with its own machine's value.
func (j *Job) HasKeywords() bool {
	for _, o := range j.Options {
		for _, k := range keywords {
			if strings.Contains(o.Value, k) {
				return true
			}
		}
	}
	return false
}

// Expand returns the job as fio runs it on machine m: $pagesize,
// $mb_memory and $ncpus replaced and, where one was, the value's integer
// arithmetic (+ - * / and parentheses, as fio hands it to bc) worked out,
// so that numjobs=$ncpus or size=8*$mb_memory reach their typed fields.
func (j Job) Expand(m Machine) (Job, error) {
	if !j.HasKeywords() {
		return j, nil
	}
	page := m.PageSize
	if page == 0 {
		page = 4096
	}
	values := map[string]string{"$pagesize": strconv.Itoa(page), "$mb_memory": strconv.Itoa(m.MemMB), "$ncpus": strconv.Itoa(m.NCPUs)}
	opts := j.Render()
	for i, o := range opts {
		v, replaced := o.Value, false
		for _, k := range keywords {
			if strings.Contains(v, k) {
				v, replaced = strings.ReplaceAll(v, k, values[k]), true
			}
		}
		if !replaced {
			continue
		}
		if strings.ContainsAny(v, "+-*/") {
			n, err := evalInt(v)
			if err != nil {
				return j, fmt.Errorf("job %q: %s=%s: %w", j.Name, o.Key, o.Value, err)
			}
			v = strconv.FormatInt(n, 10)
		}
		opts[i].Value = v
	}
	return JobFromOptions(j.Name, opts), nil
}

// evalInt works out integer arithmetic as bc does with its default scale
// (division truncates).
func evalInt(s string) (int64, error) {
	p := &exprParser{s: strings.ReplaceAll(s, " ", "")}
	n, err := p.sum()
	if err == nil && p.i != len(p.s) {
		err = fmt.Errorf("cannot read %q as arithmetic", p.s[p.i:])
	}
	return n, err
}

type exprParser struct {
	s string
	i int
}

func (p *exprParser) sum() (int64, error) {
	n, err := p.product()
	for err == nil && p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
		op := p.s[p.i]
		p.i++
		var m int64
		if m, err = p.product(); op == '+' {
			n += m
		} else {
			n -= m
		}
	}
	return n, err
}

func (p *exprParser) product() (int64, error) {
	n, err := p.factor()
	for err == nil && p.i < len(p.s) && (p.s[p.i] == '*' || p.s[p.i] == '/') {
		op := p.s[p.i]
		p.i++
		var m int64
		if m, err = p.factor(); err != nil {
			break
		}
		if op == '*' {
			n *= m
		} else if m == 0 {
			return 0, fmt.Errorf("division by zero")
		} else {
			n /= m
		}
	}
	return n, err
}

func (p *exprParser) factor() (int64, error) {
	if p.i < len(p.s) && p.s[p.i] == '(' {
		p.i++
		n, err := p.sum()
		if err != nil {
			return 0, err
		}
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return 0, fmt.Errorf("missing )")
		}
		p.i++
		return n, nil
	}
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '-' {
		p.i++
	}
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	n, err := strconv.ParseInt(p.s[start:p.i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cannot read %q as arithmetic", p.s[start:])
	}
	return n, nil
}
