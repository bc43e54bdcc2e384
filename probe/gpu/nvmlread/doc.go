// Package nvmlread reads the GPU snapshot (probe/gpu) from NVML through
// go-nvml: each device's identity, memory, clocks, power, temperature,
// utilisation, modes, PCIe link, memory errors, NVLinks and processes, and
// the XID events delivered while it reads. It is the one probe package
// that needs cgo, so the backend, which never reads a GPU, builds without
// it.
//
// Step 1 of the observation pipeline (read, judge, observe, spool, push):
// reads the GPU snapshot from NVML.
package nvmlread
