package sim

// Every run of this package's tests checks its accounting when it ends.
func init() { auditRuns = true }
