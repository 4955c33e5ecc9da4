//go:build linux

// Package slurmtest starts a throwaway single-node Slurm cluster for tests,
// from the binaries of Debian's slurm-wlm package (slurmctld, slurmd and
// munge's munged): a temporary munge key and socket, a slurm.conf with one
// node (this host at 127.0.0.1, its CPUs) and one partition, state, spool
// and logs in a temporary directory, and free ports; it stops everything
// at the end. The daemons and their jobs run as the user who starts it:
// root in CI, or an ordinary user (both work; the user needs a writable
// $TMPDIR).
package slurmtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ErrNoBinaries is wrapped by Start's error when Slurm or munge is not
// installed.
var ErrNoBinaries = errors.New("Slurm binaries (slurmctld, slurmd, sbatch, munged) not found; install Debian's slurm-wlm package")

// Partition is the cluster's one partition, the default.
const Partition = "perflabtest"

// Cluster is a running single-node Slurm cluster.
type Cluster struct {
	dir   string
	conf  string
	node  string
	cpus  int
	procs []*exec.Cmd
}

var daemons = []string{"munged", "slurmctld", "slurmd"}

func lookBinaries() (map[string]string, error) {
	bins := map[string]string{}
	for _, name := range append(daemons, "sbatch", "scontrol", "sinfo", "scancel") {
		p, err := exec.LookPath(name)
		if err != nil {
			for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/local/sbin"} {
				if _, serr := os.Stat(filepath.Join(dir, name)); serr == nil {
					p, err = filepath.Join(dir, name), nil
					break
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%w (%s is missing)", ErrNoBinaries, name)
		}
		bins[name] = p
	}
	return bins, nil
}

// Start starts munged, slurmctld and slurmd and waits until the node is
// idle. Call Stop when done.
func Start(ctx context.Context) (*Cluster, error) {
	bins, err := lookBinaries()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "perflab-slurmtest-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, node: "perflabnode", cpus: runtime.NumCPU()}
	if err := c.start(ctx, bins); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context, bins map[string]string) error {
	// munged wants its socket's directories reachable by everyone and its
	// key readable by its user alone.
	for _, d := range []string{"", "munge", "state", "spool", "log"} {
		if err := os.MkdirAll(filepath.Join(c.dir, d), 0o755); err != nil {
			return err
		}
		if err := os.Chmod(filepath.Join(c.dir, d), 0o755); err != nil {
			return err
		}
	}
	key := make([]byte, 1024)
	f, err := os.Open("/dev/urandom")
	if err != nil {
		return err
	}
	_, err = f.Read(key)
	f.Close()
	if err != nil {
		return err
	}
	if err := os.WriteFile(c.path("munge.key"), key, 0o600); err != nil {
		return err
	}
	socket := c.path("munge", "munge.sock")
	if err := c.daemon(bins["munged"], "munged", "--foreground", "--key-file="+c.path("munge.key"), "--socket="+socket,
		"--pid-file="+c.path("munged.pid"), "--log-file="+c.path("log", "munged.log"), "--seed-file="+c.path("munged.seed")); err != nil {
		return err
	}
	if err := waitFor(ctx, 10*time.Second, func() error { _, err := os.Stat(socket); return err }); err != nil {
		return fmt.Errorf("slurmtest: munged made no socket: %w%s", err, c.logs())
	}
	conf, err := c.writeConf(socket)
	if err != nil {
		return err
	}
	c.conf = conf
	if err := c.daemon(bins["slurmctld"], "slurmctld", "-D", "-i", "-f", conf); err != nil {
		return err
	}
	if err := c.daemon(bins["slurmd"], "slurmd", "-D", "-N", c.node, "-f", conf); err != nil {
		return err
	}
	err = waitFor(ctx, 60*time.Second, func() error {
		out, err := c.Command("sinfo", "--noheader", "--nodes="+c.node, "--format=%t").Output()
		if err != nil {
			return err
		}
		if s := strings.TrimSpace(string(out)); s != "idle" {
			return fmt.Errorf("node %s is %q", c.node, s)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("slurmtest: the node did not become idle: %w%s", err, c.logs())
	}
	return nil
}

func (c *Cluster) path(elem ...string) string {
	return filepath.Join(append([]string{c.dir}, elem...)...)
}

// writeConf writes slurm.conf: this host as controller and node, at
// 127.0.0.1 on free ports, no accounting, no cgroups, CPUs as
// consumable resources so array tasks share the node.
func (c *Cluster) writeConf(socket string) (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", err
	}
	host, _, _ = strings.Cut(host, ".")
	ports, err := freePorts(2)
	if err != nil {
		return "", err
	}
	u, err := user.Current()
	if err != nil {
		return "", err
	}
	conf := fmt.Sprintf(`ClusterName=perflabtest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=%[4]s
SlurmdUser=%[4]s
AuthType=auth/munge
AuthInfo=socket=%[5]s
CredType=cred/munge
StateSaveLocation=%[6]s/state
SlurmdSpoolDir=%[6]s/spool
SlurmctldPidFile=%[6]s/slurmctld.pid
SlurmdPidFile=%[6]s/slurmd.pid
SlurmctldLogFile=%[6]s/log/slurmctld.log
SlurmdLogFile=%[6]s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobRequeue=1
MinJobAge=3600
KillWait=5
NodeName=%[7]s NodeAddr=127.0.0.1 NodeHostname=%[1]s CPUs=%[8]d State=UNKNOWN
PartitionName=%[9]s Nodes=%[7]s Default=YES MaxTime=INFINITE State=UP
`, host, ports[0], ports[1], u.Username, socket, c.dir, c.node, c.cpus, Partition)
	p := c.path("slurm.conf")
	return p, os.WriteFile(p, []byte(conf), 0o644)
}

// daemon starts a daemon in the foreground, as a child ended with the
// test binary.
func (c *Cluster) daemon(bin, name string, args ...string) error {
	cmd := exec.Command(bin, args...)
	cmd.Dir = c.dir
	cmd.Env = c.Env()
	log, err := os.Create(c.path("log", name+".out"))
	if err != nil {
		return err
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("slurmtest: start %s: %w", name, err)
	}
	c.procs = append(c.procs, cmd)
	return nil
}

// logs returns the daemons' logs, for an error.
func (c *Cluster) logs() string {
	var b strings.Builder
	for _, name := range []string{"munged.log", "munged.out", "slurmctld.log", "slurmctld.out", "slurmd.log", "slurmd.out"} {
		data, err := os.ReadFile(c.path("log", name))
		if err != nil || len(data) == 0 {
			continue
		}
		if len(data) > 3000 {
			data = data[len(data)-3000:]
		}
		fmt.Fprintf(&b, "\n--- %s:\n%s", name, data)
	}
	return b.String()
}

// Env is the environment of a Slurm client command of this cluster: the
// process's own with SLURM_CONF naming the cluster's configuration.
func (c *Cluster) Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SLURM_") {
			env = append(env, kv)
		}
	}
	return append(env, "SLURM_CONF="+c.conf)
}

// Command returns a Slurm client command (sbatch, squeue, scontrol, …)
// talking to this cluster.
func (c *Cluster) Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = c.Env()
	return cmd
}

// Submit runs sbatch on script with the extra environment env (sbatch
// hands its environment to the job), and returns the job ID.
func (c *Cluster) Submit(script string, env ...string) (string, error) {
	cmd := c.Command("sbatch", "--parsable", script)
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("sbatch %s: %w: %s", script, err, stderr.String())
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	return id, nil
}

// Task is one array task of a job, as scontrol shows it.
type Task struct {
	ID       string // JOB_TASK, e.g. "12_1"
	Index    int    // the array index
	State    string // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, …
	Restarts int    // times requeued
	ExitCode string // "status:signal"
}

// Done reports whether the task has ended.
func (t Task) Done() bool {
	switch t.State {
	case "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING", "SUSPENDED", "SIGNALING", "STAGE_OUT":
		return false
	}
	return true
}

// Tasks returns the array tasks of job (by index; a pending range that
// Slurm has not split yet counts as one entry per index).
func (c *Cluster) Tasks(job string) ([]Task, error) {
	out, err := c.Command("scontrol", "--oneliner", "show", "job", job).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("scontrol show job %s: %w: %s", job, err, out)
	}
	var tasks []Task
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := map[string]string{}
		for _, kv := range strings.Fields(line) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				f[k] = v
			}
		}
		t := Task{State: f["JobState"], ExitCode: f["ExitCode"]}
		t.Restarts, _ = strconv.Atoi(f["Restarts"])
		lo, hi, err := indexRange(f["ArrayTaskId"])
		if err != nil {
			return nil, fmt.Errorf("scontrol show job %s: task %q: %w", job, f["ArrayTaskId"], err)
		}
		for i := lo; i <= hi; i++ {
			t.Index, t.ID = i, f["ArrayJobId"]+"_"+strconv.Itoa(i)
			tasks = append(tasks, t)
		}
	}
	return tasks, nil
}

// indexRange reads an ArrayTaskId: "3", or a pending "0-1" (or "0-3%2").
func indexRange(s string) (lo, hi int, err error) {
	s, _, _ = strings.Cut(s, "%")
	a, b, isRange := strings.Cut(s, "-")
	if lo, err = strconv.Atoi(a); err != nil {
		return 0, 0, err
	}
	if !isRange {
		return lo, lo, nil
	}
	hi, err = strconv.Atoi(b)
	return lo, hi, err
}

// Wait polls job's tasks every half second until until says they are as
// wanted, and returns them; it fails when ctx ends first.
func (c *Cluster) Wait(ctx context.Context, job string, until func([]Task) bool) ([]Task, error) {
	for {
		tasks, err := c.Tasks(job)
		if err == nil && until(tasks) {
			return tasks, nil
		}
		select {
		case <-ctx.Done():
			return tasks, fmt.Errorf("job %s: %w (tasks %+v, last error %v)", job, ctx.Err(), tasks, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// Requeue puts an ended or running task back in the queue and makes it
// eligible at once (Slurm otherwise holds a requeued job back for a
// while).
func (c *Cluster) Requeue(task string) error {
	if out, err := c.Command("scontrol", "requeue", task).CombinedOutput(); err != nil {
		return fmt.Errorf("scontrol requeue %s: %w: %s", task, err, out)
	}
	if out, err := c.Command("scontrol", "update", "JobId="+task, "StartTime=now").CombinedOutput(); err != nil {
		return fmt.Errorf("scontrol update JobId=%s StartTime=now: %w: %s", task, err, out)
	}
	return nil
}

// Stop cancels every job, stops the daemons and removes the directory.
func (c *Cluster) Stop() {
	if c.conf != "" {
		c.Command("scancel", "--partition="+Partition, "--full", "--signal=KILL").Run()
		c.Command("scancel", "--partition="+Partition).Run()
		// Give slurmd a moment to reap the jobs' steps.
		waitFor(context.Background(), 10*time.Second, func() error {
			out, err := c.Command("squeue", "--noheader", "--states=RUNNING,COMPLETING").Output()
			if err != nil || len(bytes.TrimSpace(out)) == 0 {
				return nil
			}
			return errors.New("jobs still running")
		})
	}
	for i := len(c.procs) - 1; i >= 0; i-- {
		p := c.procs[i]
		p.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	os.RemoveAll(c.dir)
}

// Logs returns the tail of each daemon's log, for a failing test.
func (c *Cluster) Logs() string { return c.logs() }

func waitFor(ctx context.Context, limit time.Duration, ok func() error) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		err := ok()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("slurmtest: find a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// ForTest starts a cluster stopped when t ends and returns it; it skips t
// when Slurm or munge is not installed.
func ForTest(t testing.TB) *Cluster {
	t.Helper()
	c, err := Start(context.Background())
	if errors.Is(err, ErrNoBinaries) {
		t.Skipf("skipping Slurm test: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}
