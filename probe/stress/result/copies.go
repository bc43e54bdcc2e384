package result

// Bandwidth is one copy measurement. GB/s are decimal (1e9 bytes).
type Bandwidth struct {
	GPU    int    `json:"gpu"`
	Peer   *int   `json:"peer,omitempty"` // destination GPU of a peer copy
	Test   string `json:"test"`           // d2d_memcpy, d2d_kernel, h2d, d2h, p2p
	Method string `json:"method"`
	Bytes  uint64 `json:"bytes"`
	Reps   int    `json:"reps"`
	// Counting says which bytes the rate counts: "read+write" for copies
	// inside one GPU's memory (each byte is read once and written once),
	// "one-way" for copies across a bus.
	Counting string  `json:"counting"`
	BestGBs  float64 `json:"best_gbs"`
	MedianGB float64 `json:"median_gbs"`
	// BadWords counts 32-bit words of the destination that did not hold
	// the source's pattern after the copies (-1: not verified).
	BadWords int64  `json:"bad_words"`
	Skipped  string `json:"skipped,omitempty"`
	Error    string `json:"error,omitempty"`
	// Interrupted: as Burn's.
	Interrupted string `json:"interrupted,omitempty"`
}

// Memtest is the pattern test over most of a GPU's free memory.
type Memtest struct {
	GPU      int      `json:"gpu"`
	Bytes    uint64   `json:"bytes"`
	FreeAt   uint64   `json:"free_bytes_before"`
	Patterns []string `json:"patterns"`
	Passes   int      `json:"passes"`
	// BadWords counts 32-bit words that read back wrong, over all passes;
	// BadAddrs lists the first distinct device addresses among them.
	BadWords uint64   `json:"bad_words"`
	BadAddrs []string `json:"bad_addresses,omitempty"`
	Seconds  float64  `json:"seconds"`
	GBs      float64  `json:"write_read_gbs"`
	Injected bool     `json:"fault_injected,omitempty"`
	Skipped  string   `json:"skipped,omitempty"`
	Error    string   `json:"error,omitempty"`
	// Interrupted: as Burn's.
	Interrupted string `json:"interrupted,omitempty"`
}
