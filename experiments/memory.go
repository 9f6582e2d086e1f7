package experiments

// The memory estimates each definition gives with .memory, measured on the 2-core machine at 1 to
// 10 million jobs; each is an upper bound of the bytes the run allocates in all
// (TestMemoryEstimates checks it against runtime.MemStats.TotalAlloc):
//
//	assembly, orderings  ~6.6 B a job (the crash flags, four sinks and two seen-sets of a byte a job)
//	keys                 ~8.5 B a job
//	claims               ~14 B a job, plus the window's 24 B a crash
//	window               1 B a job for the stream, 1/8 for the seen-bitmap, 16 B a crash for the
//	                     sorted deliveries (twice, while sorting) and up to 8 for the late ones,
//	                     and 4 B an id of the widest window's ring: 261 MB at 10^7 jobs, all crashing
//	window-grid          the same stream, and the deliveries of one row at a time (two counted, for
//	                     the garbage of the last row the collector has not freed yet)
//	lease, crash-sweep, outbox, scale: under 4 MB whatever their sizes (they keep counts, not jobs)

// smallRun is the estimate for experiments that keep counts rather than a slot per job, and the
// floor of every other estimate.
const smallRun = 4 << 20

// smallMemory prices an experiment that keeps counts rather than a slot per job.
func smallMemory[P any](P) int64 { return smallRun }

func perJob(jobs int64, bytes float64) int64 { return smallRun + int64(float64(jobs)*bytes) }

func streamMemory(p StreamParams) int64 { return perJob(p.Jobs, 7) }

func keysMemory(p StreamParams) int64 { return perJob(p.Jobs, 9) }

func claimsMemory(p ClaimsParams) int64 {
	return perJob(p.Jobs, 16) + int64(float64(p.Jobs)*p.CrashRate*24)
}

func windowMemory(p WindowParams) int64 {
	return perJob(p.Jobs, 1.125) + windowRowMemory(p.Jobs, p.CrashRate, p.Windows)
}

func windowGridMemory(p WindowGridParams) int64 {
	return perJob(p.Jobs, 1.125) + int64(min(2, len(p.MaxDelays)))*windowRowMemory(p.Jobs, p.CrashRate, p.Windows)
}

// windowRowMemory is one delay draw of the window experiment: the deliveries and their sort
// buffer, the late ones, and the ring of the widest window (never wider than the applications).
func windowRowMemory(jobs int64, crashRate float64, windows []int64) int64 {
	crashes := float64(jobs) * crashRate
	var widest int64
	for _, w := range windows {
		widest = max(widest, w)
	}
	ring := min(float64(widest), float64(jobs)+crashes)
	return int64(crashes*24 + ring*4)
}
