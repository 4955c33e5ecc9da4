package launch

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func goodSlurm(t *testing.T) Slurm {
	return Slurm{Shards: Shards{Command: "ab", Args: []string{"v1", "v2", "./x", "-bench", "It's $HOME `x` \"q\"", "--budget", "5m"}, N: 3, RunKey: "k 1"},
		Name: "perflab-k-1", Perflab: filepath.Join(t.TempDir(), "my perflab"), CPUs: 2, Memory: "8G", Time: "1:00:00", Exclusive: true}
}

// TestSlurmScriptRuns runs the script as an array task would, with a
// stand-in perflab that records its arguments and environment: task T
// runs shard T+1 with every argument as given, and the URL reaches perflab
// through the environment, from the submitting shell or from a file.
func TestSlurmScriptRuns(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	for _, fromFile := range []bool{false, true} {
		s := goodSlurm(t)
		dir := t.TempDir()
		record := filepath.Join(dir, "args")
		stub := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + shellQuote(record) + "\nprintf '%s' \"$PERFLAB_DB\" > " + shellQuote(record+".db") + "\n"
		if err := os.WriteFile(s.Perflab, []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
		const url = "postgres://u:secret@db/perflab"
		env := []string{"PATH=" + os.Getenv("PATH"), "SLURM_ARRAY_TASK_ID=1"}
		if fromFile {
			s.DBFile = filepath.Join(dir, "dsn file")
			if err := os.WriteFile(s.DBFile, []byte(url+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		} else {
			env = append(env, DBEnv+"="+url)
		}
		script, err := s.Script()
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"#SBATCH --array=0-2\n", "#SBATCH --requeue\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --mem=8G\n", "#SBATCH --time=1:00:00\n", "#SBATCH --exclusive\n", "#SBATCH --open-mode=append\n"} {
			if !strings.Contains(string(script), want) {
				t.Errorf("script lacks %q:\n%s", want, script)
			}
		}
		if strings.Contains(string(script), "secret") {
			t.Errorf("the script holds the database URL:\n%s", script)
		}
		cmd := exec.Command("bash", "-c", string(script))
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("script: %v\n%s\n%s", err, out, script)
		}
		b, err := os.ReadFile(record)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if want := s.Argv("2/3"); !slices.Equal(got, want) {
			t.Errorf("from file %v: perflab got %q, want %q", fromFile, got, want)
		}
		if db, _ := os.ReadFile(record + ".db"); string(db) != url {
			t.Errorf("from file %v: PERFLAB_DB = %q, want %q", fromFile, db, url)
		}
	}
}

// TestSlurmScriptNeedsTheURL: a task without the URL stops with a message
// saying how to give it, before perflab starts.
func TestSlurmScriptNeedsTheURL(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	s := goodSlurm(t)
	script, err := s.Script()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", string(script))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "SLURM_ARRAY_TASK_ID=0"}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "export PERFLAB_DB") {
		t.Errorf("script without PERFLAB_DB: err %v, output %s", err, out)
	}
}

func TestSlurmRefusesBadJobs(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Slurm)
		want string
	}{
		{"name", func(s *Slurm) { s.Name = "a b" }, "job name"},
		{"cpus", func(s *Slurm) { s.CPUs = 0 }, "--cpus"},
		{"memory", func(s *Slurm) { s.Memory = "8Gi" }, "--memory"},
		{"time", func(s *Slurm) { s.Time = "1h" }, "--time"},
		{"partition", func(s *Slurm) { s.Partition = "a;b" }, "--partition"},
		{"chdir", func(s *Slurm) { s.Dir = "/a b" }, "--chdir"},
		{"db file", func(s *Slurm) { s.DBFile = "a\nb" }, "--db-file"},
		{"nul", func(s *Slurm) { s.Args = []string{"a\x00"} }, "NUL"},
		{"shards", func(s *Slurm) { s.N = 0 }, "--shards"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := goodSlurm(t)
			tc.edit(&s)
			if _, err := s.Script(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Script() error = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}
