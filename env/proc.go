package env

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// parseCPUInfo returns the CPU model described by the contents of
// /proc/cpuinfo. x86 and most others name it in "model name"; POWER in
// "cpu"; arm64 only gives numeric "CPU implementer" and "CPU part" codes,
// which are translated to names where known (for example "ARM Neoverse-N1").
// Distinct models (as on big.LITTLE systems) are joined with " + ".
// It returns Unknown if nothing usable is present.
func parseCPUInfo(b []byte) string {
	var (
		names  []string
		seen   = map[string]bool{}
		block  = map[string]string{}
		global = map[string]string{}
	)
	flush := func() {
		if n := blockCPUName(block); n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
		clear(block)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		v = oneLine(v)
		if k == "" || v == "" {
			continue
		}
		// A new "processor" line starts a new block even without a blank line.
		if k == "processor" && len(block) > 0 {
			flush()
		}
		if _, dup := block[k]; !dup {
			block[k] = v
		}
		if _, dup := global[k]; !dup {
			global[k] = v
		}
	}
	// A line too long for the scanner ends the scan; use what was read.
	flush()
	if len(names) > 0 {
		return strings.Join(names, " + ")
	}
	// Whole-file fallbacks: a generic processor line, the board, the vendor.
	for _, k := range []string{"Processor", "Hardware", "vendor_id"} {
		if v := global[k]; v != "" {
			return v
		}
	}
	return Unknown
}

// blockCPUName names the processor described by one /proc/cpuinfo block,
// or returns "" if the block does not say.
func blockCPUName(block map[string]string) string {
	for _, k := range []string{"model name", "cpu model", "cpu"} {
		if v := block[k]; v != "" {
			return v
		}
	}
	if impl, part := block["CPU implementer"], block["CPU part"]; impl != "" || part != "" {
		return armName(impl, part)
	}
	if v := block["uarch"]; v != "" { // RISC-V
		return v
	}
	return ""
}

// armImplementers maps arm64 "CPU implementer" codes to vendor names.
var armImplementers = map[uint64]string{
	0x41: "ARM",
	0x42: "Broadcom",
	0x43: "Cavium",
	0x46: "Fujitsu",
	0x48: "HiSilicon",
	0x4e: "NVIDIA",
	0x50: "APM",
	0x51: "Qualcomm",
	0x61: "Apple",
	0x6d: "Microsoft",
	0xc0: "Ampere",
}

// armParts maps (implementer, part) codes to core names.
var armParts = map[[2]uint64]string{
	{0x41, 0xd03}: "Cortex-A53",
	{0x41, 0xd04}: "Cortex-A35",
	{0x41, 0xd05}: "Cortex-A55",
	{0x41, 0xd07}: "Cortex-A57",
	{0x41, 0xd08}: "Cortex-A72",
	{0x41, 0xd09}: "Cortex-A73",
	{0x41, 0xd0a}: "Cortex-A75",
	{0x41, 0xd0b}: "Cortex-A76",
	{0x41, 0xd0c}: "Neoverse-N1",
	{0x41, 0xd0d}: "Cortex-A77",
	{0x41, 0xd40}: "Neoverse-V1",
	{0x41, 0xd41}: "Cortex-A78",
	{0x41, 0xd44}: "Cortex-X1",
	{0x41, 0xd46}: "Cortex-A510",
	{0x41, 0xd47}: "Cortex-A710",
	{0x41, 0xd48}: "Cortex-X2",
	{0x41, 0xd49}: "Neoverse-N2",
	{0x41, 0xd4a}: "Neoverse-E1",
	{0x41, 0xd4f}: "Neoverse-V2",
	{0x41, 0xd80}: "Cortex-A520",
	{0x41, 0xd81}: "Cortex-A720",
	{0x41, 0xd82}: "Cortex-X4",
	{0x41, 0xd84}: "Neoverse-V3",
	{0x41, 0xd8e}: "Neoverse-N3",
	{0x43, 0x0af}: "ThunderX2",
	{0x46, 0x001}: "A64FX",
	{0x48, 0xd01}: "Kunpeng-920",
	{0x4e, 0x004}: "Carmel",
	{0x61, 0x022}: "M1 Icestorm",
	{0x61, 0x023}: "M1 Firestorm",
	{0xc0, 0xac3}: "AmpereOne",
}

// armName names an arm64 core from its cpuinfo implementer and part codes,
// falling back to the codes themselves.
func armName(impl, part string) string {
	iv, iok := parseHex(impl)
	pv, pok := parseHex(part)
	vendor, vok := armImplementers[iv]
	if !iok || !vok {
		vendor = "implementer " + orUnknown(impl)
	}
	if iok && pok {
		if n, ok := armParts[[2]uint64{iv, pv}]; ok {
			return vendor + " " + n
		}
	}
	return vendor + " part " + orUnknown(part)
}

func parseHex(s string) (uint64, bool) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 0, 64)
	return v, err == nil
}

// parseLoadavg returns the first three fields of /proc/loadavg, or Unknown
// if they are missing or not numbers.
func parseLoadavg(b []byte) string {
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return Unknown
	}
	for _, x := range f[:3] {
		if _, err := strconv.ParseFloat(x, 64); err != nil {
			return Unknown
		}
	}
	return strings.Join(f[:3], " ")
}

// parseGovernor returns the cpufreq scaling governor named in b.
func parseGovernor(b []byte) string {
	return orUnknown(oneLine(string(b)))
}

// parseOSRelease returns the kernel release in the contents of
// /proc/sys/kernel/osrelease.
func parseOSRelease(b []byte) string {
	return orUnknown(oneLine(string(b)))
}
