package results

// VerdictMode is how a code task judged programs: VerdictOfficial runs
// each program as one process, as the official harness does;
// VerdictIsolated keeps the model's code apart from the tests' process.
type VerdictMode string

// The verdict modes.
const (
	VerdictOfficial VerdictMode = "official"
	VerdictIsolated VerdictMode = "isolated"
)

// CodeRecordKey is the Environment key under which a code task records
// how it runs programs ("code:humaneval"): the one place the key is
// spelled, for the task that writes it and the readers below.
func CodeRecordKey(task string) string { return "code:" + task }

// CodeVerdictMode is the verdict mode the run judged task in, from the
// task's code record in Environment (its "verdict_mode" → "mode"); ok is
// false when the run holds no code record for task (not a code task).
// Runs made before the mode was recorded used the official one.
func (m *Manifest) CodeVerdictMode(task string) (mode VerdictMode, ok bool) {
	rec, ok := m.Environment[CodeRecordKey(task)].(map[string]any)
	if !ok {
		return "", false
	}
	if vm, _ := rec["verdict_mode"].(map[string]any); vm != nil {
		if s, _ := vm["mode"].(string); s != "" {
			return VerdictMode(s), true
		}
	}
	return VerdictOfficial, true
}
