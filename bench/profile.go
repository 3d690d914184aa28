package bench

import "slices"

// Profile is a named bench configuration: the workload of a published
// measurement, so that it can be repeated by name.
type Profile struct {
	Name        string
	Description string
	// Config holds the tests, repetitions and headline statistic.
	Config Config
	// Threads is the engine thread count the measurement used.
	Threads int
}

// Profiles are the named configurations, from the MNN-Pocket release
// (see ../shared/reference/pocket.md in the project's shared material).
var Profiles = []Profile{
	{
		Name: "pocket-energy",
		Description: "MNN-Pocket's energy workload (OnePlus 13, CPU): 1024 prompt tokens, then 128 decoded " +
			"on the same KV cache, 4 threads, warm up once, 3 measured rounds, median",
		Config:  Config{PG: []PG{{Prompt: 1024, Gen: 128}}, Reps: 3, Center: "median", Profile: "pocket-energy"},
		Threads: 4,
	},
	{
		Name: "pocket-release",
		Description: "the MNN-Pocket release's speed rule: prefill (512 tokens) and decode (128 tokens) measured " +
			"separately, warm up once, measure five times, take the median; 4 threads (the release does not state " +
			"the CPU thread count of its speed runs; its energy runs used 4)",
		Config:  Config{Prompt: 512, Gen: 128, Reps: 5, Center: "median", Profile: "pocket-release"},
		Threads: 4,
	},
}

// LookupProfile returns the profile called name.
func LookupProfile(name string) (Profile, bool) {
	i := slices.IndexFunc(Profiles, func(p Profile) bool { return p.Name == name })
	if i < 0 {
		return Profile{}, false
	}
	return Profiles[i], true
}

// ProfileNames lists the profiles' names.
func ProfileNames() []string {
	names := make([]string, len(Profiles))
	for i, p := range Profiles {
		names[i] = p.Name
	}
	return names
}
