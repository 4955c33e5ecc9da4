package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"
)

// writerEnv makes this test binary act as a database writer (see TestMain).
const writerEnv = "PERFLAB_STORE_KILL_WRITER"

// perRound is the number of results every stored round holds.
const perRound = 200

func TestMain(m *testing.M) {
	if path := os.Getenv(writerEnv); path != "" {
		os.Exit(writeRoundsForever(path))
	}
	os.Exit(m.Run())
}

// writeRoundsForever appends rounds of perRound results until killed.
func writeRoundsForever(path string) int {
	db, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	id, err := db.CreateRun(ctx, &Run{Experiment: "kill", Mode: "quick"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	for round := 1; ; round++ {
		res := make([]*benchfmt.Result, perRound)
		for i := range res {
			res[i] = &benchfmt.Result{
				Config: []benchfmt.Config{{Key: "config", Value: []byte("default"), File: true}},
				Name:   benchfmt.Name("X/n=" + strconv.Itoa(i)), Iters: 1000,
				Values: []benchfmt.Value{{Value: float64(round), Unit: "sec/op"}, {Value: 64, Unit: "B/op"}},
			}
		}
		if err := db.AddRound(ctx, id, round, res); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
}

// TestSurvivesKill9 kills a writer at random moments, many times, and checks
// after each kill that the database opens and holds only whole rounds.
func TestSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills writer processes")
	}
	path := filepath.Join(t.TempDir(), "kill.db")
	rng := rand.New(rand.NewPCG(1, 2))
	stored := 0
	for i := 0; i < 8; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), writerEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 6)
		if _, err := out.Read(buf); err != nil {
			t.Fatalf("writer did not start: %v", err)
		}
		time.Sleep(time.Duration(20+rng.IntN(150)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()

		db, err := Open(path)
		if err != nil {
			t.Fatalf("after kill %d: %v", i, err)
		}
		runs, err := db.Runs(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			done, err := db.RoundsDone(context.Background(), r.ID)
			if err != nil {
				t.Fatal(err)
			}
			results, err := db.Results(context.Background(), r.ID)
			if err != nil {
				t.Fatal(err)
			}
			stored = max(stored, len(done))
			if len(results) != perRound*len(done) {
				t.Fatalf("after kill %d, run %d holds %d results for %d rounds: a partial round survived", i, r.ID, len(results), len(done))
			}
		}
		db.Close()
	}
	if stored == 0 {
		t.Error("no round was ever stored: the writer never got to write, so the test proved nothing")
	}
}
