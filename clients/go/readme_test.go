package hub

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// Every ```go block of the README is the body of an example in example_test.go, which the
// compiler checks: a README example that no longer compiles fails here first.
func TestReadmeExamplesAreCompiled(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	examples, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)\n```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) < 8 {
		t.Fatalf("%d go blocks in the README", len(blocks))
	}
	for _, block := range blocks {
		lines := strings.Split(block[1], "\n")
		for i, line := range lines {
			if line != "" {
				lines[i] = "\t" + line
			}
		}
		body := "() {\n" + strings.Join(lines, "\n") + "\n}\n"
		if !strings.Contains(string(examples), body) {
			t.Errorf("this README example is no example function's body:\n%s", block[1])
		}
	}
}
