// Package gate is the release gate: a policy (gate.yaml: per-task maximum
// drops, minimum scores, significance, a suite-average floor, on-device
// budgets) applied to a candidate run against a baseline (Gate), and the
// verdict rendered as JSON, JUnit XML and Markdown.
//
// One job a file: policy.go reads and validates gate.yaml, verdict.go
// applies it to two runs (Gate), render.go writes the verdict as JUnit
// XML and Markdown, budgets.go checks on-device budgets, decision.go the
// decision-task thresholds.
package gate
