// The Go half of `npm run bench:clients-go` (bench/clients-go.ts starts the hub): N authenticated
// GETs of /api-platform/v1/users/{id}, one after another over a kept-alive connection, with plain
// net/http and with the library (Client.Do and the generated typed method), in alternating
// rounds. Prints requests per second (median of the rounds), the ratio to net/http, and the time
// and heap allocations the library adds per call.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"time"

	hub "github.com/gaming-hub/gaming-hub-go"
)

type sample struct {
	rps, allocs, bytes float64
	// cpu is this process's CPU time per call (user + system), µs: steadier than wall time on a busy machine
	cpu float64
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func measure(n int, call func(id int) error) sample {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	started, cpu := time.Now(), cpuTime()
	for i := range n {
		if err := call(i%40 + 1); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	elapsed, used := time.Since(started), cpuTime()-cpu
	runtime.ReadMemStats(&after)
	return sample{
		rps:    float64(n) / elapsed.Seconds(),
		allocs: float64(after.Mallocs-before.Mallocs) / float64(n),
		bytes:  float64(after.TotalAlloc-before.TotalAlloc) / float64(n),
		cpu:    float64(used.Microseconds()) / float64(n),
	}
}

func median(samples []sample, field func(sample) float64) float64 {
	xs := make([]float64, len(samples))
	for i, s := range samples {
		xs[i] = field(s)
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

func main() {
	requests := flag.Int("requests", 2000, "GETs per round")
	rounds := flag.Int("rounds", 3, "alternating rounds")
	flag.Parse()
	base, key := os.Getenv("HUB_URL"), os.Getenv("HUB_API_KEY")
	ctx := context.Background()

	plainClient := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	plain := func(id int) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api-platform/v1/users/"+strconv.Itoa(id), nil)
		if err != nil {
			return err
		}
		req.Header.Set("X-Api-Key", key)
		res, err := plainClient.Do(req)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			return fmt.Errorf("plain: %d %v", res.StatusCode, err)
		}
		var out map[string]any
		return json.Unmarshal(data, &out)
	}

	c, err := hub.New(base, hub.WithAPIKey(key))
	if err != nil {
		panic(err)
	}
	generic := func(id int) error {
		var out map[string]any
		_, err := c.Do(ctx, http.MethodGet, "/api-platform/v1/users/{id}", &hub.Params{Path: map[string]any{"id": id}}, &out)
		return err
	}
	typed := func(id int) error {
		res, err := c.API.UsersGetWithResponse(ctx, id, nil)
		if err == nil && res.JSON200 == nil {
			err = fmt.Errorf("typed: status %d", res.StatusCode())
		}
		return err
	}

	kinds := []struct {
		name string
		call func(int) error
	}{{"plain net/http", plain}, {"hub.Client.Do", generic}, {"Client.API (typed)", typed}}
	runs := make([][]sample, len(kinds))
	for _, k := range kinds { // warm up: connections, caches
		measure(*requests/4, k.call)
	}
	for range *rounds {
		for i, k := range kinds {
			runs[i] = append(runs[i], measure(*requests, k.call))
		}
	}
	fmt.Printf("%d GET /api-platform/v1/users/{id} per round, %d alternating rounds, one kept-alive connection, sequential (%s)\n",
		*requests, *rounds, runtime.Version())
	plainRPS := median(runs[0], func(s sample) float64 { return s.rps })
	plainAllocs := median(runs[0], func(s sample) float64 { return s.allocs })
	plainCPU := median(runs[0], func(s sample) float64 { return s.cpu })
	for i, k := range kinds {
		rps := median(runs[i], func(s sample) float64 { return s.rps })
		allocs := median(runs[i], func(s sample) float64 { return s.allocs })
		bytes := median(runs[i], func(s sample) float64 { return s.bytes })
		cpu := median(runs[i], func(s sample) float64 { return s.cpu })
		line := fmt.Sprintf("%-20s %6.0f req/s  %4.0f µs CPU  %4.0f allocs  %6.0f B per call", k.name+":", rps, cpu, allocs, bytes)
		if i > 0 {
			added := time.Duration(float64(time.Second)/rps - float64(time.Second)/plainRPS)
			line += fmt.Sprintf("   ratio %.2f (target >= 0.90), adds %s wall, %.0f µs CPU, %.0f allocs per call",
				rps/plainRPS, added.Round(time.Microsecond), cpu-plainCPU, allocs-plainAllocs)
		}
		fmt.Println(line)
	}
}
