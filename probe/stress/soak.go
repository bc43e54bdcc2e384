package stress

import "github.com/gpusla/gpusla/probe/stress/result"

// soakPrecision is the soak's precision on a card of the given
// architecture: as asked, else BF16 (the hottest of the burns, matrix
// work on the tensor cores) where the card has tensor cores, else FP32.
func soakPrecision(asked result.Precision, arch int) result.Precision {
	switch {
	case asked != "":
		return asked
	case arch >= 80:
		return result.BF16
	}
	return result.FP32
}
