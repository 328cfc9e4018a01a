// The Go implementation of every conformance scenario (clients/conformance/scenarios.json), using
// only the library's public API: one JSON line per scenario on stdout,
// {"scenario", "language": "go", "status": "pass"|"fail", "duration_ms", "error"?}.
//
//	HUB_CONFORMANCE_FIXTURE=… go run ./conformance [scenario …]
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"
)

func ctx() context.Context { return context.Background() }

func main() {
	fx, err := loadFixture()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	h := &harness{fx: fx, skew: measureSkew(fx.HubURL)}
	data, err := os.ReadFile(fx.ScenariosFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var file struct {
		Scenarios []scenario `json:"scenarios"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	only := os.Args[1:]
	failed := 0
	for _, s := range file.Scenarios {
		if len(only) > 0 && !slices.Contains(only, s.Name) {
			continue
		}
		var run func() error
		switch s.Kind {
		case "calls":
			run = func() error { return h.runCalls(s) }
		case "paginate":
			run = func() error { return h.runPaginate(s) }
		default:
			custom, ok := customScenarios[s.Name]
			if !ok {
				continue // not implemented: the runner reports it missing
			}
			run = func() error { return custom(h, s.Name) }
		}
		started := time.Now()
		line := map[string]any{"scenario": s.Name, "language": "go", "status": "pass"}
		if err := protect(run); err != nil {
			failed++
			line["status"] = "fail"
			line["error"] = err.Error()
		}
		line["duration_ms"] = time.Since(started).Milliseconds()
		out, _ := json.Marshal(line)
		fmt.Println(string(out))
	}
	if failed > 0 {
		os.Exit(1)
	}
}

// protect turns a panic of a scenario into its failure.
func protect(run func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return run()
}
