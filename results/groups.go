package results

import "github.com/pocketeval/pocketeval/stats"

// Group is a group of tasks whose metrics are aggregated into one score,
// as lm-evaluation-harness aggregates the groups of its group files
// (mmlu over its subjects, bbh over its sub-tasks). The manifest records
// the run's groups so that a resumed or merged run aggregates alike.
type Group struct {
	Name string `json:"name"`
	// Alias is the name shown in tables (lm-eval's group_alias); "" for
	// the name.
	Alias string `json:"alias,omitempty"`
	// Version is the group file's metadata.version; "" when it has none.
	Version string `json:"version,omitempty"`
	// Members are the group's direct members in order: task names and the
	// names of other groups of the run.
	Members []string `json:"members"`
	// Aggregate lists the metrics aggregated over the group's tasks
	// (aggregate_metric_list); a group without any reports no score of
	// its own, as in lm-eval.
	Aggregate []GroupMetric `json:"aggregate,omitempty"`
}

// GroupMetric is one entry of a group's aggregate_metric_list.
type GroupMetric struct {
	// Metric is the metric's name without a filter ("acc", "exact_match").
	Metric string `json:"metric"`
	// Filters are the filter sets aggregated, "none" being the metric
	// without a filter; nil aggregates every filter set the group's tasks
	// report the metric under.
	Filters []string `json:"filters,omitempty"`
	// WeightBySize weighs each task by its number of scored samples;
	// false gives every task the same weight.
	WeightBySize bool `json:"weight_by_size"`
}

// GroupSummary holds one group's numbers.
type GroupSummary struct {
	Alias   string `json:"alias,omitempty"`
	Version string `json:"version,omitempty"`
	// Members are the group's direct members (tasks and groups).
	Members []string `json:"members"`
	// Tasks are every task under the group, nested groups expanded, in
	// member order: the tasks its metrics aggregate.
	Tasks []string `json:"tasks"`
	// Metrics maps "metric" (no filter) or "metric,filter" to the
	// aggregate: the mean over the tasks reporting it, weighted by their
	// scored samples or not; Stderr is lm-eval's pooled standard error
	// (0, and no interval, when a task has none); N is the number of
	// samples of the tasks that report the metric.
	Metrics map[string]stats.Summary `json:"metrics,omitempty"`
	// Samples is the number of scored samples of the group's tasks.
	Samples int `json:"samples"`
	// Primary is the first aggregated metric (the one tables show
	// first); "" when the group aggregates nothing.
	Primary  string   `json:"primary_metric,omitempty"`
	Notes    []string `json:"notes,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}
