package runtime

import (
	"errors"
	"fmt"
	"strings"

	"go.starlark.net/starlark"
)

// maxFrames bounds the backtrace FormatError prints, so a runaway
// recursion still fits on one screen.
const maxFrames = 16

// FormatError renders a script error for a person: the innermost Starlark
// backtrace (it spans loaded files and the callbacks builtins make), each
// frame with file:line:col, then the message with the context outer
// levels added (`cannot load lib.star: ...`, a builtin's `setting x=1: ...`).
// A builtin's name appears once (`Error in fio.run: ...`) even when the
// message starts with it, as starlark.UnpackArgs messages do. Errors that
// are not evaluation errors (syntax errors, missing files) print as they
// are: they already start with file:line:col.
func FormatError(err error) string {
	var chain []*starlark.EvalError // outermost first
	for e := err; e != nil; e = errors.Unwrap(e) {
		if ee, ok := e.(*starlark.EvalError); ok {
			chain = append(chain, ee)
		}
	}
	if len(chain) == 0 {
		return err.Error()
	}
	inner := chain[len(chain)-1]
	stack := inner.CallStack
	msg := inner.Msg
	suffix := ""
	if last := len(stack) - 1; last >= 0 && stack[last].Pos.Filename() == "<builtin>" {
		name := stack[last].Name
		suffix = " in " + name
		msg = strings.TrimPrefix(msg, name+": ")
		stack = stack[:last]
	}
	for i := len(chain) - 2; i >= 0; i-- {
		context, ok := strings.CutSuffix(chain[i].Msg, chain[i+1].Msg)
		if !ok {
			break
		}
		msg = context + msg
	}
	var b strings.Builder
	if len(stack) > 0 {
		b.WriteString("Traceback (most recent call last):\n")
	}
	for i, fr := range stack {
		if len(stack) > maxFrames && i == maxFrames/2 {
			fmt.Fprintf(&b, "  ... %d frames elided ...\n", len(stack)-maxFrames)
		}
		if len(stack) > maxFrames && i >= maxFrames/2 && i < len(stack)-maxFrames/2 {
			continue
		}
		fmt.Fprintf(&b, "  %s: in %s\n", fr.Pos, fr.Name)
	}
	fmt.Fprintf(&b, "Error%s: %s", suffix, msg)
	return b.String()
}
