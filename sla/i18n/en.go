package i18n

// enWords are the English words for the report's machine words (the
// snake_case kinds, causes and verdicts the JSON keeps): documents and
// pages for people write "GPU lost", not gpu_lost. Every other English
// sentence is its own key and needs no entry; a word already readable as
// it is (unreachable, met, breached) has none either.
var enWords = map[string]string{
	"gpu_lost":                 "GPU lost",
	"gpu_degraded":             "GPU hardware fault",
	"network_degraded":         "network degraded",
	"performance_below_spec":   "performance below spec",
	"inventory_mismatch":       "hardware not as ordered",
	"no_data":                  "no data (no observation from the node)",
	"network":                  "network failure",
	"no_connectivity_evidence": "no connectivity evidence",
	"backend_unreachable_only": "only the backend could not hear the node",
	"backend_outage":           "backend outage",
	"check_failed":             "check failed",
	"no_target":                "no target",
	"extra_working_day":        "extra working day",
	"late_response":            "late first response",
	"late_replacement":         "late hardware replacement",
	"late_delivery":            "late delivery",
	"batch_dropped":            "batch dropped",
	"chain_break":              "hash chain broken",
	"chain_restart":            "hash chain restarted",
	"time_bounds":              "time out of bounds",
	"usage_unreadable":         "usage reading unreadable",
	"not_judged":               "not judged",
	"over_billed":              "over-billed",
	"under_billed":             "under-billed",
	"not_in_report":            "not in the report",
	"not_on_bill":              "not on the bill",
	"cannot_verify":            "cannot be verified",
	"no_notice":                "no fault reported",
	// A table's column of when a record was entered; "recorded" alone is
	// the probe's criterion of a reading kept without a pass line.
	"head:recorded": "recorded",
}
