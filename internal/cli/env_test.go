package cli

import (
	"os"
	"strings"
	"testing"

	"starbench/internal/vsphere"
)

// TestEveryGovcVariableIsDocumented: --help and the README list every
// variable starbench reads.
func TestEveryGovcVariableIsDocumented(t *testing.T) {
	r := runCLI(t, "", nil, "run", "--help")
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vsphere.EnvVars {
		if !strings.Contains(r.stdout, v.Name+" ") {
			t.Errorf("run --help does not list %s", v.Name)
		}
		if !strings.Contains(string(readme), "`"+v.Name+"`") {
			t.Errorf("README.md does not list %s", v.Name)
		}
	}
}
