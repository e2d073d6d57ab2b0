package cli

import (
	"fmt"
	"runtime/debug"
	"sort"
	"strings"

	"go.starlark.net/starlark"

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
	all := runtime.AllModules(mods)
	switch len(pos) {
	case 0:
		runtime.WriteDoc(st.Stdout, all)
		fmt.Fprintln(st.Stdout)
		runtime.WriteLibraries(st.Stdout)
		return ExitOK
	case 1:
	default:
		return reportUsage(st, usagef("doc", "want at most one MODULE, got %s", strings.Join(pos, " ")))
	}
	modName, member, _ := strings.Cut(pos[0], ".")
	var names []string
	for _, m := range all {
		if m.Name != modName {
			names = append(names, m.Name)
			continue
		}
		if member == "" {
			runtime.WriteDoc(st.Stdout, []*runtime.Module{m})
			return ExitOK
		}
		var members []string
		for _, mem := range m.Members {
			if mem.Name == member {
				runtime.WriteDoc(st.Stdout, []*runtime.Module{{Name: m.Name, Doc: m.Doc, Members: []runtime.Member{mem}}})
				return ExitOK
			}
			members = append(members, mem.Name)
		}
		return reportUsage(st, usagef("doc", "module %s has no member %q; members: %s", m.Name, member, strings.Join(members, ", ")))
	}
	for _, lib := range runtime.Libraries() {
		if lib.Name == pos[0] {
			fmt.Fprintf(st.Stdout, "%s: %s\n", lib.Name, lib.Doc)
			if attrs, ok := lib.Value.(starlark.HasAttrs); ok {
				members := attrs.AttrNames()
				sort.Strings(members)
				fmt.Fprintf(st.Stdout, "  members: %s\n", strings.Join(members, ", "))
			}
			return ExitOK
		}
		names = append(names, lib.Name)
	}
	return reportUsage(st, usagef("doc", "no module %q; modules: %s", pos[0], strings.Join(names, ", ")))
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
