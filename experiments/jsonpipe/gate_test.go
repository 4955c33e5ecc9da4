package jsonpipe

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestGateCatchesPlantedEncoder: Verify names the first difference of an
// encoder that changes one number.
func TestGateCatchesPlantedEncoder(t *testing.T) {
	d, err := Generate(Seed, MinSize)
	if err != nil {
		t.Fatal(err)
	}
	err = Verify(plantedVariant().New(), d.JSON, d.Value)
	if err == nil {
		t.Fatal("Verify accepted the planted encoder's output")
	}
	re := regexp.MustCompile(`^output differs from the input: \$[.\[][^:]*: got number (\S+), want number (\S+)$`)
	if !re.MatchString(err.Error()) {
		t.Fatalf("Verify = %q, want the path and both numbers of the first difference", err)
	}
	if err := Verify(new(heapPipe), d.JSON, d.Value); err != nil {
		t.Fatalf("Verify rejects the correct heap pipeline: %v", err)
	}
}

// TestBenchmarkFailsIncorrectCell runs BenchmarkPipeline with the planted
// variant in a child process: the cell must fail with "perflab: incorrect:"
// and the first difference, the form the engine records as incorrect.
func TestBenchmarkFailsIncorrectCell(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^BenchmarkPipeline$/^kib=1$/^variant=planted$", "-test.benchtime=1x")
	cmd.Env = append(os.Environ(), plantEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("benchmark with the planted variant: err = %v, want a failing exit; output:\n%s", err, out)
	}
	if !strings.Contains(string(out), "perflab: incorrect: output differs from the input: $") {
		t.Fatalf("output lacks the incorrect-cell message:\n%s", out)
	}
	if strings.Contains(string(out), "ns/op") {
		t.Errorf("the incorrect cell was timed:\n%s", out)
	}
}
