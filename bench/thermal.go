package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Thermal reads the CPU frequency and thermal state from sysfs:
//
//   - <Root>/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq, the kernel's
//     idea of each CPU's current frequency in kHz (cpufreq's sysfs ABI);
//   - <Root>/class/thermal/thermal_zoneN/{type,temp}, each thermal zone's
//     name and temperature in millidegrees Celsius (the thermal sysfs ABI).
//     A few vendor drivers report whole degrees; a reading whose magnitude
//     is under 1000 is taken as degrees, and Zone.Unit says which.
//
// The zero Root means "/sys". Files that do not exist or cannot be read
// are left out (Android restricts some per-CPU files to root); a snapshot
// with neither frequencies nor zones is empty, not an error.
type Thermal struct {
	Root string
}

// ThermalState is one reading of every CPU frequency and thermal zone.
type ThermalState struct {
	// Rep is the repetition the state was read after (0: the discarded
	// warm-up run), or -1 for the reading before the test's load.
	Rep   int       `json:"rep"`
	Freqs []CPUFreq `json:"cpu_freq_khz,omitempty"`
	Zones []Zone    `json:"zones,omitempty"`
}

// CPUFreq is one CPU's scaling_cur_freq.
type CPUFreq struct {
	CPU int   `json:"cpu"`
	KHz int64 `json:"khz"`
}

// Zone is one thermal zone's temperature.
type Zone struct {
	Zone string  `json:"zone"` // thermal_zone3
	Type string  `json:"type"` // cpu-thermal, soc-thermal, battery...
	C    float64 `json:"c"`    // degrees Celsius
	// Unit is the unit the file gave: "m°C" (the kernel ABI) or "°C".
	Unit string `json:"unit"`
}

func (t Thermal) root() string {
	if t.Root == "" {
		return "/sys"
	}
	return t.Root
}

// Read takes one snapshot, CPUs and zones in numeric order.
func (t Thermal) Read() ThermalState {
	var s ThermalState
	cpus, _ := filepath.Glob(filepath.Join(t.root(), "devices/system/cpu/cpu[0-9]*/cpufreq/scaling_cur_freq"))
	for _, p := range cpus {
		n, ok := suffixNumber(filepath.Base(filepath.Dir(filepath.Dir(p))), "cpu")
		v, err := readInt(p)
		if !ok || err != nil {
			continue
		}
		s.Freqs = append(s.Freqs, CPUFreq{CPU: n, KHz: v})
	}
	sort.Slice(s.Freqs, func(i, j int) bool { return s.Freqs[i].CPU < s.Freqs[j].CPU })
	zones, _ := filepath.Glob(filepath.Join(t.root(), "class/thermal/thermal_zone[0-9]*"))
	type numbered struct {
		n int
		z Zone
	}
	var zs []numbered
	for _, dir := range zones {
		n, ok := suffixNumber(filepath.Base(dir), "thermal_zone")
		v, err := readInt(filepath.Join(dir, "temp"))
		if !ok || err != nil {
			continue
		}
		typ, _ := os.ReadFile(filepath.Join(dir, "type"))
		z := Zone{Zone: filepath.Base(dir), Type: strings.TrimSpace(string(typ)), C: float64(v) / 1000, Unit: "m°C"}
		if v > -1000 && v < 1000 {
			z.C, z.Unit = float64(v), "°C"
		}
		zs = append(zs, numbered{n, z})
	}
	sort.Slice(zs, func(i, j int) bool { return zs[i].n < zs[j].n })
	for _, z := range zs {
		s.Zones = append(s.Zones, z.z)
	}
	return s
}

// Hottest returns the hottest zone whose type contains match (every zone
// when match is ""), and whether there is one.
func (s ThermalState) Hottest(match string) (Zone, bool) {
	var best Zone
	found := false
	for _, z := range s.Zones {
		if match != "" && !strings.Contains(z.Type, match) {
			continue
		}
		if !found || z.C > best.C {
			best, found = z, true
		}
	}
	return best, found
}

// MaxFreq returns the highest CPU frequency in kHz (0 if none was read).
func (s ThermalState) MaxFreq() int64 {
	var m int64
	for _, f := range s.Freqs {
		m = max(m, f.KHz)
	}
	return m
}

func suffixNumber(name, prefix string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(name, prefix))
	return n, err == nil && strings.HasPrefix(name, prefix)
}

func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// Cooldown waits, before each test, until the hottest matching thermal
// zone is at or below a temperature, polling every Interval, for at most
// Timeout: a bounded wait for a state instead of a fixed sleep.
type Cooldown struct {
	// TargetC is the temperature to wait for, in degrees Celsius.
	TargetC float64
	// Zone limits the wait to zones whose type contains it ("": all).
	Zone string
	// Timeout bounds the wait; 0 means 10 minutes.
	Timeout time.Duration
	// Interval is the polling period; 0 means 1 second.
	Interval time.Duration
	// Progress, when not nil, is told the temperature at each poll while
	// the zone is too hot.
	Progress func(z Zone, waited time.Duration)
}

// ErrNoZones means there is no thermal zone to read (or none matches).
var ErrNoZones = errors.New("no thermal zone")

// ParseCelsius reads a temperature such as "40C", "40°C" or "40".
func ParseCelsius(s string) (float64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "C"), "°")
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || v < -50 || v > 150 {
		return 0, fmt.Errorf("temperature %q: want degrees Celsius such as 40C", s)
	}
	return v, nil
}

// Check reports ErrNoZones (wrapped, naming where it looked) when th has
// no zone c can wait on.
func (c Cooldown) Check(th Thermal) error {
	if _, ok := th.Read().Hottest(c.Zone); !ok {
		what := "any"
		if c.Zone != "" {
			what = fmt.Sprintf("a type containing %q", c.Zone)
		}
		return fmt.Errorf("cool down: %w with %s under %s", ErrNoZones, what, filepath.Join(th.root(), "class/thermal"))
	}
	return nil
}

// Wait blocks until the zone is cool enough; it returns the zone's last
// reading, how long it waited, and whether the target was reached (false
// when Timeout passed first: the caller measures warm and should say so).
func (c Cooldown) Wait(ctx context.Context, th Thermal) (Zone, time.Duration, bool, error) {
	timeout, every := c.Timeout, c.Interval
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	if every <= 0 {
		every = time.Second
	}
	start := time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		z, ok := th.Read().Hottest(c.Zone)
		if !ok {
			return z, time.Since(start), false, c.Check(th)
		}
		waited := time.Since(start)
		if z.C <= c.TargetC {
			return z, waited, true, nil
		}
		if waited >= timeout {
			return z, waited, false, nil
		}
		if c.Progress != nil {
			c.Progress(z, waited)
		}
		select {
		case <-ctx.Done():
			return z, waited, false, ctx.Err()
		case <-tick.C:
		}
	}
}

// Phases are a row's speeds while the device was cold (the first
// measured repetition, right after the warm-up and any cool-down) and in
// steady state (the median of the last half of the repetitions), for
// seeing thermal throttling: a phone's first runs are at boost
// frequency. Nil when there are fewer than 2 repetitions.
type Phases struct {
	ColdPrefill   float64 `json:"cold_prefill,omitempty"`
	ColdDecode    float64 `json:"cold_decode,omitempty"`
	SteadyPrefill float64 `json:"steady_prefill,omitempty"`
	SteadyDecode  float64 `json:"steady_decode,omitempty"`
	// SteadyReps are the 1-based repetitions the steady state is over.
	SteadyReps []int `json:"steady_reps"`
}

// phasesOf splits the row's per-repetition speeds.
func phasesOf(prefill, decode *Speed) *Phases {
	n := 0
	for _, s := range []*Speed{prefill, decode} {
		if s != nil {
			n = max(n, len(s.Values))
		}
	}
	if n < 2 {
		return nil
	}
	from := n - n/2 // the last n/2 repetitions
	p := &Phases{}
	for i := from; i < n; i++ {
		p.SteadyReps = append(p.SteadyReps, i+1)
	}
	split := func(s *Speed) (cold, steady float64) {
		if s == nil || len(s.Values) != n {
			return 0, 0
		}
		return s.Values[0], Summarize(s.Values[from:]).Median
	}
	p.ColdPrefill, p.SteadyPrefill = split(prefill)
	p.ColdDecode, p.SteadyDecode = split(decode)
	return p
}
