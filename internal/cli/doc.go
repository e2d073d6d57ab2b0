package cli

import (
	"fmt"
	"runtime/debug"
	"strings"

	"starbench/builtins"
	"starbench/internal/runtime"
)

func docCmd(st *State, args []string) int {
	fs := newFlagSet("doc")
	markdown := fs.Bool("markdown", false, "print docs/BUILTINS.md (regenerate it with: go run ./cmd/starbench doc --markdown > docs/BUILTINS.md)")
	pos, code, done := parseFlags(st, "doc", fs, args)
	if done {
		return code
	}
	mods := builtins.Modules(builtins.Deps{})
	if *markdown {
		if len(pos) > 0 {
			return reportUsage(st, usagef("doc", "--markdown documents every module; drop %s", strings.Join(pos, " ")))
		}
		fmt.Fprint(st.Stdout, runtime.Markdown(mods))
		return ExitOK
	}
	switch len(pos) {
	case 0:
		runtime.WriteDoc(st.Stdout, runtime.AllModules(mods))
		fmt.Fprintln(st.Stdout)
		runtime.WriteLibraries(st.Stdout)
		return ExitOK
	case 1:
	default:
		return reportUsage(st, usagef("doc", "want at most one MODULE, got %s", strings.Join(pos, " ")))
	}
	text, err := runtime.Doc(mods, pos[0])
	if err != nil {
		return reportUsage(st, usagef("doc", "%v", err))
	}
	fmt.Fprint(st.Stdout, text)
	return ExitOK
}

func versionCmd(st *State, args []string) int {
	fs := newFlagSet("version")
	if _, code, done := parseFlags(st, "version", fs, args); done {
		return code
	}
	version, commit, goVersion := "unknown", "unknown (built without VCS stamping: go build -buildvcs=true)", "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		version, goVersion = info.Main.Version, info.GoVersion
		settings := map[string]string{}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		if rev := settings["vcs.revision"]; rev != "" {
			commit = rev
			if t := settings["vcs.time"]; t != "" {
				commit += " (" + t + ")"
			}
			if settings["vcs.modified"] == "true" {
				commit += " with local changes"
			}
		}
		goVersion += " " + settings["GOOS"] + "/" + settings["GOARCH"]
	}
	fmt.Fprintf(st.Stdout, "starbench %s\ncommit %s\n%s\n", version, commit, strings.TrimSpace(goVersion))
	return ExitOK
}
