package cuda

// Handle is the stream's CUstream. Libraries that take a cudaStream_t
// (NCCL) accept it as is: the runtime and the driver share stream handles,
// and the probe's contexts are the devices' primary contexts, the ones the
// runtime uses.
func (s *Stream) Handle() uintptr { return s.h }
