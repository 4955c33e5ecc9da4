package env

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseCPUInfo(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"x86/proc/cpuinfo", "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"},
		{"arm64/proc/cpuinfo", "ARM Neoverse-N1"},
		{"cpuinfo/biglittle", "ARM Cortex-A55 + ARM Cortex-A76"},
		{"cpuinfo/arm64-unknown-part", "Qualcomm part 0x001"},
		{"cpuinfo/arm32-legacy", "ARMv7 Processor rev 4 (v7l)"},
		{"cpuinfo/ppc64le", "POWER9 (raw), altivec supported"},
		{"cpuinfo/riscv64", "sifive,u74-mc"},
		{"cpuinfo/garbage", Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := parseCPUInfo(b); got != tt.want {
				t.Errorf("parseCPUInfo = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseCPUInfoInline(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", Unknown},
		{"no blank line between blocks", "processor: 0\nmodel name: A\nprocessor: 1\nmodel name: B\n", "A + B"},
		{"spaces collapsed", "model name\t:  AMD   EPYC  7R13 \n", "AMD EPYC 7R13"},
		{"unknown implementer", "CPU implementer : 0x99\nCPU part : 0x123\n", "implementer 0x99 part 0x123"},
		{"implementer only", "CPU implementer : 0x41\n", "ARM part unknown"},
		{"vendor only", "vendor_id : IBM/S390\n", "IBM/S390"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseCPUInfo([]byte(tt.in)); got != tt.want {
				t.Errorf("parseCPUInfo(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseLoadavg(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0.52 0.58 0.59 2/345 12345\n", "0.52 0.58 0.59"},
		{"1.00 2.00 3.00", "1.00 2.00 3.00"},
		{"1.00 2.00", Unknown},
		{"", Unknown},
		{"a b c d", Unknown},
	}
	for _, tt := range tests {
		if got := parseLoadavg([]byte(tt.in)); got != tt.want {
			t.Errorf("parseLoadavg(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseSmallFiles(t *testing.T) {
	tests := []struct {
		name  string
		parse func([]byte) string
		in    string
		want  string
	}{
		{"governor", parseGovernor, "powersave\n", "powersave"},
		{"governor empty", parseGovernor, "\n", Unknown},
		{"osrelease", parseOSRelease, "6.8.0-1021-aws\n", "6.8.0-1021-aws"},
		{"osrelease missing", parseOSRelease, "", Unknown},
	}
	for _, tt := range tests {
		if got := tt.parse([]byte(tt.in)); got != tt.want {
			t.Errorf("%s: parse(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestParseGoEnv(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    goEnvInfo
		wantErr bool
	}{
		{
			name: "go env -json",
			in:   "{\n\t\"GOARCH\": \"amd64\",\n\t\"GOEXPERIMENT\": \"\",\n\t\"GOOS\": \"linux\",\n\t\"GOVERSION\": \"go1.26.8\"\n}\n",
			want: goEnvInfo{GOVERSION: "go1.26.8", GOOS: "linux", GOARCH: "amd64"},
		},
		{
			name: "experiment",
			in:   `{"GOARCH":"arm64","GOEXPERIMENT":"greenteagc","GOOS":"darwin","GOVERSION":"go1.25.0"}`,
			want: goEnvInfo{GOVERSION: "go1.25.0", GOOS: "darwin", GOARCH: "arm64", GOEXPERIMENT: "greenteagc"},
		},
		{name: "not json", in: "go: unknown flag -json", wantErr: true},
		{name: "no version", in: `{"GOOS":"linux"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseGoEnv([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseGoEnv error = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("parseGoEnv = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func seedFiles(f *testing.F) {
	files, _ := filepath.Glob("testdata/cpuinfo/*")
	files = append(files, "testdata/x86/proc/cpuinfo", "testdata/arm64/proc/cpuinfo",
		"testdata/x86/proc/loadavg", "testdata/x86/proc/sys/kernel/osrelease")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzParseCPUInfo(f *testing.F) {
	seedFiles(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		got := parseCPUInfo(b)
		if got == "" || strings.ContainsAny(got, "\n\r") {
			t.Errorf("parseCPUInfo(%q) = %q, want a non-empty single line", b, got)
		}
	})
}

func FuzzParseLoadavg(f *testing.F) {
	seedFiles(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		got := parseLoadavg(b)
		if got != Unknown && len(strings.Fields(got)) != 3 {
			t.Errorf("parseLoadavg(%q) = %q, want three fields or %q", b, got, Unknown)
		}
	})
}

func FuzzParseGoEnv(f *testing.F) {
	f.Add([]byte(`{"GOARCH":"amd64","GOEXPERIMENT":"","GOOS":"linux","GOVERSION":"go1.26.8"}`))
	f.Add([]byte(`{"GOVERSION":"go1\n.2"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, b []byte) {
		gi, err := parseGoEnv(b)
		if err != nil {
			return
		}
		for _, v := range []string{gi.GOVERSION, gi.GOOS, gi.GOARCH, gi.GOEXPERIMENT} {
			if strings.ContainsAny(v, "\n\r") {
				t.Errorf("parseGoEnv(%q) kept a newline in %q", b, v)
			}
		}
		if gi.GOVERSION == "" {
			t.Errorf("parseGoEnv(%q) succeeded with no GOVERSION", b)
		}
	})
}
